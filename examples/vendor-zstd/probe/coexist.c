/* coexist LIB...: dlopen each LIB in order, RTLD_NOW | RTLD_GLOBAL, into this one process; then,
 * for each one that is a probe, print "<lib> -> <provider> version=<n> roundtrip=<rc>". */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
  void *handles[64];
  if (argc < 2 || argc > 65) {
    fprintf(stderr, "usage: coexist LIB... (at most 64)\n");
    return 2;
  }
  for (int i = 1; i < argc; i++) {
    handles[i - 1] = dlopen(argv[i], RTLD_NOW | RTLD_GLOBAL);
    if (!handles[i - 1]) {
      fprintf(stderr, "coexist: %s\n", dlerror());
      return 2;
    }
  }
  for (int i = 1; i < argc; i++) {
    const char *(*provider)(void) = (const char *(*)(void))dlsym(handles[i - 1], "probe_provider");
    if (!provider) continue;
    unsigned (*version)(void) = (unsigned (*)(void))dlsym(handles[i - 1], "probe_version");
    int (*roundtrip)(void) = (int (*)(void))dlsym(handles[i - 1], "probe_roundtrip");
    if (!version || !roundtrip) return 2;
    printf("%s -> %s version=%u roundtrip=%d\n", argv[i], provider(), version(), roundtrip());
  }
  return 0;
}
