// The kernel around a user's function (after the user's source; see user_prelude.cl): one
// work-item per pixel on a 2D range, rows along x so neighbouring work-items read neighbouring
// bytes. -DVF_NEIGHBOURHOOD when the user's file defines neighbourhood(), else point().
__kernel void vf_user(__global const uchar* src, __global uchar* dst, int width, int height,
                      float8 p, uchar4 constant_) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  const size_t at = ((size_t)y * width + x) * CN;
#if defined(VF_NEIGHBOURHOOD)
  vf_image img;
  img.data = src;
  img.width = width;
  img.height = height;
  img.constant_ = constant_;
  vf_store(neighbourhood(img, (int2)(x, y), p), dst + at);
#else
  vf_store(point(vf_load(src + at), (int2)(x, y), (int2)(width, height), p), dst + at);
#endif
}
