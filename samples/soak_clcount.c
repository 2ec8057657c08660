// Live OpenCL object counts for the soak test (samples/soak.sh), without touching the program:
// an LD_PRELOAD shim over the ICD loader's entry points. Every object the program creates
// (explicitly, or as the event of an enqueue), retains or releases is counted by type; the live
// count is created + retained - released. A thread writes one line every second to
// $VIDFILTER_CLCOUNT_FILE (replaced atomically):
//   mem=12 event=3 kernel=9 program=5 queue=3 context=1
// A leak shows as a count that grows with the frames. Build (soak.sh does it):
//   cc -O2 -shared -fPIC -o soak_clcount.so samples/soak_clcount.c -ldl -lpthread
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MEM, EVENT, KERNEL, PROGRAM, QUEUE, CONTEXT, NTYPES };
static const char* const kNames[NTYPES] = {"mem", "event", "kernel", "program", "queue", "context"};
static atomic_long gLive[NTYPES];

static void* next(const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  if (!f) {
    fprintf(stderr, "soak_clcount: %s not found\n", name);
    abort();
  }
  return f;
}

#define REAL(name)               \
  static __typeof__(&name) real; \
  if (!real) real = (__typeof__(&name))next(#name)

static void* writer(void* arg) {
  const char* path = (const char*)arg;
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  for (;;) {
    char line[256];
    int n = 0;
    for (int t = 0; t < NTYPES; ++t)
      n += snprintf(line + n, sizeof line - (size_t)n, "%s%s=%ld", t ? " " : "", kNames[t],
                    atomic_load(&gLive[t]));
    n += snprintf(line + n, sizeof line - (size_t)n, "\n");
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0) {
      ssize_t w = write(fd, line, (size_t)n);
      (void)w;
      close(fd);
      rename(tmp, path);
    }
    sleep(1);
  }
  return NULL;
}

__attribute__((constructor)) static void start(void) {
  const char* path = getenv("VIDFILTER_CLCOUNT_FILE");
  if (!path || !*path) return;
  static char copy[4000];
  snprintf(copy, sizeof copy, "%s", path);
  pthread_t t;
  if (pthread_create(&t, NULL, writer, copy) == 0) pthread_detach(t);
}

static void created(int type, const void* obj) {
  if (obj) atomic_fetch_add(&gLive[type], 1);
}
static void evented(cl_int rc, const cl_event* ev) {
  if (rc == CL_SUCCESS && ev && *ev) atomic_fetch_add(&gLive[EVENT], 1);
}
static cl_int changed(int type, cl_int rc, long by) {
  if (rc == CL_SUCCESS) atomic_fetch_add(&gLive[type], by);
  return rc;
}

// --- creation -------------------------------------------------------------------------------
cl_context clCreateContext(const cl_context_properties* p, cl_uint n, const cl_device_id* d,
                           void(CL_CALLBACK* cb)(const char*, const void*, size_t, void*), void* u,
                           cl_int* e) {
  REAL(clCreateContext);
  cl_context c = real(p, n, d, cb, u, e);
  created(CONTEXT, c);
  return c;
}
cl_context clCreateContextFromType(const cl_context_properties* p, cl_device_type t,
                                   void(CL_CALLBACK* cb)(const char*, const void*, size_t, void*),
                                   void* u, cl_int* e) {
  REAL(clCreateContextFromType);
  cl_context c = real(p, t, cb, u, e);
  created(CONTEXT, c);
  return c;
}
cl_command_queue clCreateCommandQueue(cl_context c, cl_device_id d, cl_command_queue_properties p,
                                      cl_int* e) {
  REAL(clCreateCommandQueue);
  cl_command_queue q = real(c, d, p, e);
  created(QUEUE, q);
  return q;
}
cl_mem clCreateBuffer(cl_context c, cl_mem_flags f, size_t s, void* h, cl_int* e) {
  REAL(clCreateBuffer);
  cl_mem m = real(c, f, s, h, e);
  created(MEM, m);
  return m;
}
cl_mem clCreateSubBuffer(cl_mem b, cl_mem_flags f, cl_buffer_create_type t, const void* i,
                         cl_int* e) {
  REAL(clCreateSubBuffer);
  cl_mem m = real(b, f, t, i, e);
  created(MEM, m);
  return m;
}
cl_mem clCreateImage(cl_context c, cl_mem_flags f, const cl_image_format* fmt,
                     const cl_image_desc* d, void* h, cl_int* e) {
  REAL(clCreateImage);
  cl_mem m = real(c, f, fmt, d, h, e);
  created(MEM, m);
  return m;
}
cl_program clCreateProgramWithSource(cl_context c, cl_uint n, const char** s, const size_t* l,
                                     cl_int* e) {
  REAL(clCreateProgramWithSource);
  cl_program p = real(c, n, s, l, e);
  created(PROGRAM, p);
  return p;
}
cl_program clCreateProgramWithBinary(cl_context c, cl_uint n, const cl_device_id* d,
                                     const size_t* l, const unsigned char** b, cl_int* st,
                                     cl_int* e) {
  REAL(clCreateProgramWithBinary);
  cl_program p = real(c, n, d, l, b, st, e);
  created(PROGRAM, p);
  return p;
}
cl_kernel clCreateKernel(cl_program p, const char* n, cl_int* e) {
  REAL(clCreateKernel);
  cl_kernel k = real(p, n, e);
  created(KERNEL, k);
  return k;
}
cl_int clCreateKernelsInProgram(cl_program p, cl_uint n, cl_kernel* k, cl_uint* got) {
  REAL(clCreateKernelsInProgram);
  cl_uint local = 0;
  cl_int rc = real(p, n, k, got ? got : &local);
  if (rc == CL_SUCCESS && k) atomic_fetch_add(&gLive[KERNEL], (long)(got ? *got : local));
  return rc;
}
cl_event clCreateUserEvent(cl_context c, cl_int* e) {
  REAL(clCreateUserEvent);
  cl_event ev = real(c, e);
  created(EVENT, ev);
  return ev;
}

// --- retain / release -------------------------------------------------------------------------
#define REFCOUNT(type, TYPE, Name)     \
  cl_int clRetain##Name(type o) {      \
    REAL(clRetain##Name);              \
    return changed(TYPE, real(o), +1); \
  }                                    \
  cl_int clRelease##Name(type o) {     \
    REAL(clRelease##Name);             \
    return changed(TYPE, real(o), -1); \
  }
REFCOUNT(cl_context, CONTEXT, Context)
REFCOUNT(cl_command_queue, QUEUE, CommandQueue)
REFCOUNT(cl_mem, MEM, MemObject)
REFCOUNT(cl_program, PROGRAM, Program)
REFCOUNT(cl_kernel, KERNEL, Kernel)
REFCOUNT(cl_event, EVENT, Event)

// --- enqueues that return an event --------------------------------------------------------------
#define WL cl_uint nw, const cl_event *wl, cl_event *ev
cl_int clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dim, const size_t* off,
                              const size_t* g, const size_t* l, WL) {
  REAL(clEnqueueNDRangeKernel);
  cl_int rc = real(q, k, dim, off, g, l, nw, wl, ev);
  evented(rc, ev);
  return rc;
}
cl_int clEnqueueTask(cl_command_queue q, cl_kernel k, WL) {
  REAL(clEnqueueTask);
  cl_int rc = real(q, k, nw, wl, ev);
  evented(rc, ev);
  return rc;
}
cl_int clEnqueueReadBuffer(cl_command_queue q, cl_mem b, cl_bool bl, size_t o, size_t s, void* p,
                           WL) {
  REAL(clEnqueueReadBuffer);
  cl_int rc = real(q, b, bl, o, s, p, nw, wl, ev);
  evented(rc, ev);
  return rc;
}
cl_int clEnqueueWriteBuffer(cl_command_queue q, cl_mem b, cl_bool bl, size_t o, size_t s,
                            const void* p, WL) {
  REAL(clEnqueueWriteBuffer);
  cl_int rc = real(q, b, bl, o, s, p, nw, wl, ev);
  evented(rc, ev);
  return rc;
}
cl_int clEnqueueReadBufferRect(cl_command_queue q, cl_mem b, cl_bool bl, const size_t* bo,
                               const size_t* ho, const size_t* r, size_t brp, size_t bsp,
                               size_t hrp, size_t hsp, void* p, WL) {
  REAL(clEnqueueReadBufferRect);
  cl_int rc = real(q, b, bl, bo, ho, r, brp, bsp, hrp, hsp, p, nw, wl, ev);
  evented(rc, ev);
  return rc;
}
cl_int clEnqueueWriteBufferRect(cl_command_queue q, cl_mem b, cl_bool bl, const size_t* bo,
                                const size_t* ho, const size_t* r, size_t brp, size_t bsp,
                                size_t hrp, size_t hsp, const void* p, WL) {
  REAL(clEnqueueWriteBufferRect);
  cl_int rc = real(q, b, bl, bo, ho, r, brp, bsp, hrp, hsp, p, nw, wl, ev);
  evented(rc, ev);
  return rc;
}
cl_int clEnqueueCopyBuffer(cl_command_queue q, cl_mem s, cl_mem d, size_t so, size_t dof, size_t n,
                           WL) {
  REAL(clEnqueueCopyBuffer);
  cl_int rc = real(q, s, d, so, dof, n, nw, wl, ev);
  evented(rc, ev);
  return rc;
}
cl_int clEnqueueFillBuffer(cl_command_queue q, cl_mem b, const void* p, size_t ps, size_t o,
                           size_t n, WL) {
  REAL(clEnqueueFillBuffer);
  cl_int rc = real(q, b, p, ps, o, n, nw, wl, ev);
  evented(rc, ev);
  return rc;
}
void* clEnqueueMapBuffer(cl_command_queue q, cl_mem b, cl_bool bl, cl_map_flags f, size_t o,
                         size_t n, WL, cl_int* e) {
  REAL(clEnqueueMapBuffer);
  cl_int local = CL_SUCCESS;
  void* p = real(q, b, bl, f, o, n, nw, wl, ev, e ? e : &local);
  evented(e ? *e : local, ev);
  return p;
}
cl_int clEnqueueUnmapMemObject(cl_command_queue q, cl_mem m, void* p, WL) {
  REAL(clEnqueueUnmapMemObject);
  cl_int rc = real(q, m, p, nw, wl, ev);
  evented(rc, ev);
  return rc;
}
cl_int clEnqueueMarkerWithWaitList(cl_command_queue q, WL) {
  REAL(clEnqueueMarkerWithWaitList);
  cl_int rc = real(q, nw, wl, ev);
  evented(rc, ev);
  return rc;
}
cl_int clEnqueueBarrierWithWaitList(cl_command_queue q, WL) {
  REAL(clEnqueueBarrierWithWaitList);
  cl_int rc = real(q, nw, wl, ev);
  evented(rc, ev);
  return rc;
}
cl_int clEnqueueMigrateMemObjects(cl_command_queue q, cl_uint n, const cl_mem* m,
                                  cl_mem_migration_flags f, WL) {
  REAL(clEnqueueMigrateMemObjects);
  cl_int rc = real(q, n, m, f, nw, wl, ev);
  evented(rc, ev);
  return rc;
}
