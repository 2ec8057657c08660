// unsharp mask: sharpens by adding back the difference between the frame and its blur,
//   out = px + amount * (px - blur(px))
// with the 3x3 binomial blur [1 2 1; 2 4 2; 1 2 1] / 16 and amount p0 (0: no change; 1 is
// strong). A neighbourhood kernel: vf_read(img, x, y) reads any pixel, and outside the frame
// the stage's border mode decides what it returns (border=replicate, reflect101, ...).
//
//   vidfilter -i clip.mp4 --chain kernel=samples/kernels/unsharp.cl:p0=0.8:border=replicate
uchar4 neighbourhood(vf_image img, int2 pos, float8 p) {
  float4 blur = (float4)(0.0f);
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      const float w = (float)((2 - abs(dx)) * (2 - abs(dy)));  // 1 2 1 / 2 4 2 / 1 2 1
      blur += w * vf_float(vf_read(img, pos.x + dx, pos.y + dy));
    }
  blur /= 16.0f;
  const float4 px = vf_float(vf_read(img, pos.x, pos.y));
  float4 out = px + p.s0 * (px - blur);
  out.w = px.w;  // alpha unchanged
  return vf_uchar(out);
}
