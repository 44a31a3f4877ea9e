// Shared by sandbox.c (the renderer process's constructor) and the Go side (sandbox.go).
#ifndef CUTROOM_LOTTIE_SANDBOX_H
#define CUTROOM_LOTTIE_SANDBOX_H

// CUTROOM_LOTTIE_ENV marks a renderer process: "<memory bytes>:<CPU seconds>:<parent pid>".
#define CUTROOM_LOTTIE_ENV "CUTROOM_LOTTIE_RENDERER"

// cutroom_confinement is what the constructor applied.
struct cutroom_confinement {
	int renderer;            // 1 in a renderer process
	int landlock;            // the Landlock ABI applied, 0 without Landlock, -errno
	int seccomp;             // 1 with the seccomp filter, 0 unknown architecture, -errno
	const char *failed_step; // the first limit that could not be applied (NULL: none)
	int failed_errno;
};

extern struct cutroom_confinement cutroom_lottie_confinement;

#endif
