// A program every x86-64 processor runs and Valgrind cannot: ENTER with a nesting level of 1,
// which Valgrind 3.19's decoder does not know ("unhandled instruction bytes: 0xC8 ..."), so under
// Valgrind it is killed by SIGILL.
#include <cstdio>

int main() {
#if defined(__x86_64__)
  __asm__ volatile("enter $16, $1\n\tleave" ::: "memory");
#endif
  std::puts("ran");
  return 0;
}
