// vignette: darkens the frame towards its corners. Each pixel is scaled by
//   1 - strength * (d / dmax)^2
// where d is its distance from the centre and dmax the centre's distance to a corner;
// strength is p0 (0: no change, 1: black corners). A point-wise kernel that uses the pixel's
// position. p0 is live: in the preview, select the stage and move it with + and -.
//
//   vidfilter -i cam0 --chain kernel=samples/kernels/vignette.cl:p0=0.6
uchar4 point(uchar4 px, int2 pos, int2 size, float8 p) {
  const float2 centre = (float2)(size.x - 1, size.y - 1) * 0.5f;
  const float2 d = (float2)(pos.x, pos.y) - centre;
  const float r2 = dot(d, d) / max(dot(centre, centre), 1.0f);
  const float gain = clamp(1.0f - p.s0 * r2, 0.0f, 1.0f);
  float4 v = vf_float(px);
  v.xyz *= gain;
  return vf_uchar(v);
}
