// dst = saturate(gain * src + bias), as cv::Mat::convertTo(dst, -1, gain, bias): computed in
// float, rounded to nearest even, saturated to [0, 255]. Every channel alike, so the frame is
// one flat byte array. VEC bytes per work-item (vload/vstore of a VEC-wide vector).
// -DVEC=16

#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)
#define UCHARV XCAT(uchar, VEC)
#define FLOATV XCAT(float, VEC)
#define VLOAD XCAT(vload, VEC)
#define VSTORE XCAT(vstore, VEC)
#define CONVERT_FLOATV XCAT(convert_float, VEC)
#define CONVERT_UCHARV_SAT XCAT(XCAT(convert_uchar, VEC), _sat_rte)

__kernel void brightness_linear(__global const uchar* src, __global uchar* dst, int n, float gain,
                                float bias) {
  const int i = get_global_id(0) * VEC;
  if (i + VEC <= n) {
    const FLOATV v = CONVERT_FLOATV(VLOAD(0, src + i));
    VSTORE(CONVERT_UCHARV_SAT(v * gain + bias), 0, dst + i);
  } else {
    for (int k = i; k < n; ++k) dst[k] = convert_uchar_sat_rte((float)src[k] * gain + bias);
  }
}
