package encode

/*
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#include <stdio.h>

// cr_arenas_limited is the arena cap cr_limit_arenas set, 0 when it set none.
static int cr_arenas_limited;

// cr_limit_arenas caps glibc's malloc arenas before any thread exists: it is a constructor,
// so it runs when the process starts, before the Go runtime starts its threads (an idle
// server had 5 arenas with the same call first thing in main, 2 with it here). The
// environment's choice wins.
__attribute__((constructor)) static void cr_limit_arenas(void) {
	const char *t = getenv("GLIBC_TUNABLES");
	if (getenv("MALLOC_ARENA_MAX") != NULL || (t != NULL && strstr(t, "glibc.malloc.arena_max") != NULL)) return;
	if (mallopt(M_ARENA_MAX, 2) == 1) cr_arenas_limited = 2;
}
static int cr_malloc_arenas(void) { return cr_arenas_limited; }
static void cr_malloc_trim(void) { malloc_trim(0); }

// cr_malloc_heaps counts the arenas in malloc_info's report (-1 on failure).
static int cr_malloc_heaps(void) {
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (f == NULL) return -1;
	int bad = malloc_info(0, f) != 0;
	fclose(f);
	int n = 0;
	for (char *p = buf; !bad && (p = strstr(p, "<heap nr=")) != NULL; p++) n++;
	free(buf);
	return bad ? -1 : n;
}
#else
static int cr_malloc_arenas(void) { return 0; }
static void cr_malloc_trim(void) {}
static int cr_malloc_heaps(void) { return -1; }
#endif
*/
import "C"

// MallocArenas returns the number of malloc arenas this package limited the process to
// when it started (2), or 0 when it set no limit: the C library is not glibc, or the
// environment chose (MALLOC_ARENA_MAX, or glibc.malloc.arena_max in GLIBC_TUNABLES).
//
// The encoders (x264, libvpx, opus, vo-aacenc) allocate through the C allocator. glibc gives
// threads that contend for the main arena arenas of their own, up to 8 per core, and a
// long-running server whose encoder threads come and go with every export spreads their
// frame buffers over all of them, where freed memory fragments and stays resident. Two
// arenas hold the same allocations: the encoders allocate when they open, not per frame.
//
// The limit is set by a C constructor of this package, when the process starts: arenas are
// created lazily by the first threads that contend, and the Go runtime's threads make
// several before main runs (an idle server had 5 with the limit set first thing in main;
// a limit removes no arena that exists). Linking
// this package therefore limits the arenas of the whole process, which every program that
// encodes video wants; a program that does not can set MALLOC_ARENA_MAX.
func MallocArenas() int { return int(C.cr_malloc_arenas()) }

// mallocHeaps returns how many arenas glibc's malloc has made, or -1 when it cannot tell.
func mallocHeaps() int { return int(C.cr_malloc_heaps()) }

// releaseFreedMemory returns the C allocator's free pages to the system (malloc_trim),
// which glibc otherwise does only at the top of each heap. It runs whenever an encoder
// closes: x264 and libvpx free tens of megabytes of frame buffers then, and without it the
// server's RSS grew with every export (issue 15). Elsewhere than glibc it does nothing.
func releaseFreedMemory() { C.cr_malloc_trim() }
