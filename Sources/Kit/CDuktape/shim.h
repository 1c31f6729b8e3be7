#ifndef SUSI_CDUKTAPE_SHIM_H
#define SUSI_CDUKTAPE_SHIM_H
// The system's duktape (an embeddable ECMAScript 5.1 engine) and how susi runs one script in it.
//
// `susi_script_spawn` forks a child process that runs only the C below: it closes every inherited
// descriptor but its pipe, limits its CPU time, dies with its parent, creates a duktape heap whose
// allocator counts every byte against a budget (an allocation over it fails, which the script sees
// as an error), defines no host function but `print` (which appends to a bounded buffer that is
// sent back, never to a file), evaluates the script and writes the outcome to the pipe. The
// parent reads it within its time limit and kills the child when it is over: duktape as Debian
// builds it has no execution timeout hook, and a separate process is the one thing a
// `while (true) {}` cannot escape.
#include <duktape.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <unistd.h>

// Declared only under _GNU_SOURCE, which would change how the shared system headers compile in
// this module; declaring them here keeps those identical.
extern int pipe2(int fds[2], int flags);
extern int close_range(unsigned int first, unsigned int last, int flags);

// The outcome's first byte, as `susi_script_spawn`'s child writes it.
enum {
  SUSI_SCRIPT_RESULT = 'R',      // then 8 bytes of result length, the result, the printed text
  SUSI_SCRIPT_ERROR = 'E',       // then the error message
  SUSI_SCRIPT_NO_MEMORY = 'M',   // the byte budget ran out
  SUSI_SCRIPT_TOO_LONG = 'L',    // result and printed text longer than the output limit
};

typedef struct {
  size_t used;
  size_t limit;
  int refused;
  int fd;
  char *output;
  size_t outputLength;
  size_t outputLimit;
  int outputOverflow;
} susi_script_budget;

// Every block carries its size in a 16-byte header, so frees and reallocs are counted exactly.
static void *susi_script_alloc(void *udata, duk_size_t size) {
  susi_script_budget *budget = (susi_script_budget *)udata;
  if (size > budget->limit - budget->used) {
    budget->refused = 1;
    return NULL;
  }
  size_t *block = (size_t *)malloc(size + 16);
  if (block == NULL) return NULL;
  block[0] = size;
  budget->used += size;
  return (char *)block + 16;
}

static void susi_script_free(void *udata, void *pointer) {
  if (pointer == NULL) return;
  susi_script_budget *budget = (susi_script_budget *)udata;
  size_t *block = (size_t *)((char *)pointer - 16);
  budget->used -= block[0];
  free(block);
}

static void *susi_script_realloc(void *udata, void *pointer, duk_size_t size) {
  if (pointer == NULL) return susi_script_alloc(udata, size);
  if (size == 0) {
    susi_script_free(udata, pointer);
    return NULL;
  }
  susi_script_budget *budget = (susi_script_budget *)udata;
  size_t *block = (size_t *)((char *)pointer - 16);
  size_t old = block[0];
  if (size > old && size - old > budget->limit - budget->used) {
    budget->refused = 1;
    return NULL;
  }
  size_t *moved = (size_t *)realloc(block, size + 16);
  if (moved == NULL) return NULL;
  budget->used = budget->used - old + size;
  moved[0] = size;
  return (char *)moved + 16;
}

static void susi_script_write_all(int fd, const void *bytes, size_t length) {
  const char *next = (const char *)bytes;
  while (length > 0) {
    ssize_t written = write(fd, next, length);
    if (written < 0) {
      if (errno == EINTR) continue;
      return;
    }
    next += written;
    length -= (size_t)written;
  }
}

static void susi_script_finish(int fd, char status, const char *text, size_t length) {
  susi_script_write_all(fd, &status, 1);
  susi_script_write_all(fd, text, length);
  _exit(0);
}

static void susi_script_fatal(void *udata, const char *message) {
  susi_script_budget *budget = (susi_script_budget *)udata;
  if (budget->refused) susi_script_finish(budget->fd, SUSI_SCRIPT_NO_MEMORY, "", 0);
  susi_script_finish(budget->fd, SUSI_SCRIPT_ERROR, message, message ? strlen(message) : 0);
}

static void susi_script_append(susi_script_budget *budget, const char *text, size_t length) {
  size_t room = budget->outputLimit - budget->outputLength;
  if (length > room) {
    length = room;
    budget->outputOverflow = 1;
  }
  memcpy(budget->output + budget->outputLength, text, length);
  budget->outputLength += length;
}

// `print(a, b, …)`: the arguments as strings, separated by spaces, then a line break.
static duk_ret_t susi_script_print(duk_context *context) {
  duk_memory_functions functions;
  duk_get_memory_functions(context, &functions);
  susi_script_budget *budget = (susi_script_budget *)functions.udata;
  duk_idx_t count = duk_get_top(context);
  for (duk_idx_t index = 0; index < count; index++) {
    duk_size_t length = 0;
    const char *text = duk_safe_to_lstring(context, index, &length);
    if (index > 0) susi_script_append(budget, " ", 1);
    susi_script_append(budget, text, length);
  }
  susi_script_append(budget, "\n", 1);
  return 0;
}

static void susi_script_child(
    int fd, const char *source, size_t length, size_t memoryLimit, size_t outputLimit,
    unsigned int cpuSeconds) {
  if (fd > 3) close_range(3, (unsigned int)fd - 1, 0);
  close_range((unsigned int)fd + 1, ~0U, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  signal(SIGXCPU, SIG_DFL);
  struct rlimit cpu = {cpuSeconds, cpuSeconds + 1};
  setrlimit(RLIMIT_CPU, &cpu);
  struct rlimit core = {0, 0};
  setrlimit(RLIMIT_CORE, &core);
  susi_script_budget budget = {0, memoryLimit, 0, fd, NULL, 0, outputLimit, 0};
  budget.output = (char *)malloc(outputLimit + 1);
  if (budget.output == NULL) susi_script_finish(fd, SUSI_SCRIPT_NO_MEMORY, "", 0);
  duk_context *context = duk_create_heap(
      susi_script_alloc, susi_script_realloc, susi_script_free, &budget, susi_script_fatal);
  if (context == NULL) susi_script_finish(fd, SUSI_SCRIPT_NO_MEMORY, "", 0);
  duk_push_c_function(context, susi_script_print, DUK_VARARGS);
  duk_put_global_string(context, "print");
  if (duk_peval_lstring(context, source, length) != 0) {
    if (budget.refused) susi_script_finish(fd, SUSI_SCRIPT_NO_MEMORY, "", 0);
    duk_size_t messageLength = 0;
    const char *message = duk_safe_to_lstring(context, -1, &messageLength);
    susi_script_finish(fd, SUSI_SCRIPT_ERROR, message, messageLength);
  }
  duk_size_t resultLength = 0;
  const char *result = "";
  if (!duk_is_undefined(context, -1) && !duk_is_null(context, -1)) {
    result = duk_safe_to_lstring(context, -1, &resultLength);
  }
  if (budget.outputOverflow || resultLength > outputLimit - budget.outputLength) {
    susi_script_finish(fd, SUSI_SCRIPT_TOO_LONG, "", 0);
  }
  char status = SUSI_SCRIPT_RESULT;
  uint64_t size = resultLength;
  susi_script_write_all(fd, &status, 1);
  susi_script_write_all(fd, &size, sizeof size);
  susi_script_write_all(fd, result, resultLength);
  susi_script_write_all(fd, budget.output, budget.outputLength);
  _exit(0);
}

// Starts a child evaluating `source`; returns its pid (or -1 with errno set) and the read end of
// the pipe its outcome comes through.
static inline pid_t susi_script_spawn(
    const char *source, size_t length, size_t memoryLimit, size_t outputLimit,
    unsigned int cpuSeconds, int *readEnd) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return -1;
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return -1;
  }
  if (pid == 0) {
    close(fds[0]);
    susi_script_child(fds[1], source, length, memoryLimit, outputLimit, cpuSeconds);
    _exit(0);
  }
  close(fds[1]);
  *readEnd = fds[0];
  return pid;
}
#endif
