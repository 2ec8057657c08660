// The sobel output modes, shared by sobel.cl (tile kernel) and sobel_gpu.cl (direct kernel):
// the host defines exactly one of MODE_X, MODE_Y, MODE_MAG, MODE_L2; NEED_GX / NEED_GY say which
// gradients the mode uses.
#ifndef VF_SOBEL_MODES_CL
#define VF_SOBEL_MODES_CL

#if !defined(MODE_X) && !defined(MODE_Y) && !defined(MODE_MAG) && !defined(MODE_L2)
#error "define one of MODE_X, MODE_Y, MODE_MAG, MODE_L2"
#endif
#if !defined(MODE_Y)
#define NEED_GX 1
#endif
#if !defined(MODE_X)
#define NEED_GY 1
#endif

#endif
