#ifndef SUSI_CEPOLL_SHIM_H
#define SUSI_CEPOLL_SHIM_H
// The Linux APIs the toolchain's Glibc module does not export: for the HTTP server's event loop
// epoll, eventfd, accept4 and naming threads (for profilers); for the susi process, mallopt.
#include <malloc.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

// accept4 and pthread_setname_np are declared only under _GNU_SOURCE, which would change how the
// shared system headers compile in this module; declaring it here keeps them identical.
extern int accept4(int fd, void *address, unsigned int *length, int flags);

static inline int susi_accept4(int fd, void *address, unsigned int *length, int flags) {
  return accept4(fd, address, length, flags);
}

extern int pthread_setname_np(pthread_t thread, const char *name);

static inline void susi_name_current_thread(const char *name) {
  pthread_setname_np(pthread_self(), name);
}

// glibc gives threads that allocate their own malloc arenas (up to 8 per core); a server under
// load then keeps tens of megabytes of freed memory spread over them.
static inline void susi_limit_malloc_arenas(int count) {
  mallopt(M_ARENA_MAX, count);
}
#endif
