// invert: each colour channel becomes 255 minus itself (alpha stays), as cv::bitwise_not on the
// colour channels. A point-wise kernel: each output pixel from the same input pixel.
//
//   vidfilter -i clip.mp4 --chain kernel=samples/kernels/invert.cl
//
// px holds the pixel as (b, g, r, a); a gray frame arrives as (v, v, v, 255) and keeps x.
uchar4 point(uchar4 px, int2 pos, int2 size, float8 p) {
  return (uchar4)((uchar3)(255) - px.xyz, px.w);
}
