//go:build linux

// The confinement of a renderer process (see sandbox.go and the package doc, "Renderer
// processes"). It runs as an ELF constructor, before the Go runtime starts a thread, in
// every binary that links package lottie: when CUTROOM_LOTTIE_RENDERER is set the process
// is a renderer, and the limits set here hold for every thread it will ever have. Any
// other process returns at once.

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sandbox.h"

struct cutroom_confinement cutroom_lottie_confinement;

// Landlock, by raw syscalls (the C library has no wrappers and the build host's headers
// may be older than the kernel): the access rights of each ABI version.
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif
#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_RULE_PATH_BENEATH 1
#define LL_FS_EXECUTE (1ULL << 0)
#define LL_FS_READ_FILE (1ULL << 2)
#define LL_FS_ABI1 ((1ULL << 13) - 1) // execute .. make_sym
#define LL_FS_REFER (1ULL << 13)      // ABI 2
#define LL_FS_TRUNCATE (1ULL << 14)   // ABI 3
#define LL_FS_IOCTL_DEV (1ULL << 15)  // ABI 5
#define LL_NET_ALL ((1ULL << 2) - 1)  // ABI 4: bind_tcp, connect_tcp
#define LL_SCOPE_ALL ((1ULL << 2) - 1) // ABI 6: abstract unix sockets, signals

struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net; // ABI 4
	uint64_t scoped;             // ABI 6
};

struct ll_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

// findRlottie notes the directory of the loaded librlottie (dl_iterate_phdr callback).
static int findRlottie(struct dl_phdr_info *info, size_t size, void *data) {
	(void)size;
	const char *slash = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
	if (slash && strncmp(slash, "/librlottie.so", 14) == 0) {
		size_t n = (size_t)(slash - info->dlpi_name);
		if (n < 4000) {
			memcpy(data, info->dlpi_name, n);
			((char *)data)[n] = 0;
			return 1;
		}
	}
	return 0;
}

// landlock forbids the file system (every access right of the kernel's ABI but reading and
// mapping the files of rlottie's plugin directory, <librlottie's dir>/rlottie, where its
// image loader is), TCP, abstract unix sockets and signals to processes outside the
// renderer. It returns the ABI applied, 0 when the kernel has no Landlock, or -errno.
static int landlock(void) {
	long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
	if (abi < 1) {
		return 0; // ENOSYS or EOPNOTSUPP: not built in or not enabled
	}
	struct ll_ruleset_attr attr = {.handled_access_fs = LL_FS_ABI1};
	size_t attrSize = sizeof(uint64_t);
	if (abi >= 2) {
		attr.handled_access_fs |= LL_FS_REFER;
	}
	if (abi >= 3) {
		attr.handled_access_fs |= LL_FS_TRUNCATE;
	}
	if (abi >= 4) {
		attr.handled_access_net = LL_NET_ALL;
		attrSize = 2 * sizeof(uint64_t);
	}
	if (abi >= 5) {
		attr.handled_access_fs |= LL_FS_IOCTL_DEV;
	}
	if (abi >= 6) {
		attr.scoped = LL_SCOPE_ALL;
		attrSize = 3 * sizeof(uint64_t);
	}
	int rs = (int)syscall(__NR_landlock_create_ruleset, &attr, attrSize, 0);
	if (rs < 0) {
		return -errno;
	}
	char dir[4096 + 16];
	if (dl_iterate_phdr(findRlottie, dir) == 1) {
		strcat(dir, "/rlottie");
		int fd = open(dir, O_PATH | O_CLOEXEC | O_DIRECTORY);
		if (fd >= 0) {
			struct ll_path_beneath_attr pb = {.allowed_access = LL_FS_READ_FILE | LL_FS_EXECUTE, .parent_fd = fd};
			if (syscall(__NR_landlock_add_rule, rs, LL_RULE_PATH_BENEATH, &pb, 0) != 0) {
				int e = errno;
				close(fd);
				close(rs);
				return -e;
			}
			close(fd);
		}
	}
	if (syscall(__NR_landlock_restrict_self, rs, 0) != 0) {
		int e = errno;
		close(rs);
		return -e;
	}
	close(rs);
	return (int)abi;
}

#if defined(__x86_64__)
#define AUDIT_ARCH_NATIVE AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define AUDIT_ARCH_NATIVE AUDIT_ARCH_AARCH64
#endif

#define DENY(nr, e) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (e))

// seccomp forbids new processes (fork, vfork, clone without CLONE_THREAD: threads are
// allowed, and clone3 answers ENOSYS so the C library falls back to clone, whose flags a
// filter can read), exec and ptrace. It returns 1 when applied, 0 on an architecture it
// does not know, or -errno.
static int seccomp(void) {
#ifdef AUDIT_ARCH_NATIVE
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_NATIVE, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#if defined(__x86_64__)
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1), // the x32 ABI
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		DENY(__NR_fork, EPERM),
		DENY(__NR_vfork, EPERM),
#endif
		DENY(__NR_clone3, ENOSYS),
		DENY(__NR_execve, EPERM),
		DENY(__NR_execveat, EPERM),
		DENY(__NR_ptrace, EPERM),
		DENY(__NR_process_vm_writev, EPERM),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])), // flags, low word
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
		return -errno;
	}
	return 1;
#else
	return 0;
#endif
}

// threads returns the number of threads of this process (from /proc/self/status), or 1
// when it cannot be read.
static int threads(void) {
	char buf[4096];
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		return 1;
	}
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0) {
		return 1;
	}
	buf[n] = 0;
	const char *t = strstr(buf, "\nThreads:");
	return t ? atoi(t + 9) : 1;
}

static int limit(int resource, rlim_t soft, rlim_t hard) {
	struct rlimit r = {.rlim_cur = soft, .rlim_max = hard};
	return setrlimit(resource, &r) == 0 ? 0 : errno;
}

// fail records the first step that could not be applied; the renderer then refuses to run.
static void fail(const char *step, int err) {
	if (cutroom_lottie_confinement.failed_step == NULL) {
		cutroom_lottie_confinement.failed_step = step;
		cutroom_lottie_confinement.failed_errno = err;
	}
}

__attribute__((constructor)) static void cutroom_lottie_confine(void) {
	const char *spec = getenv(CUTROOM_LOTTIE_ENV);
	if (spec == NULL || *spec == 0) {
		return;
	}
	cutroom_lottie_confinement.renderer = 1;
	// "<memory bytes>:<CPU seconds>:<parent pid>", written by the parent
	char *end;
	unsigned long long mem = strtoull(spec, &end, 10);
	unsigned long long cpu = *end == ':' ? strtoull(end + 1, &end, 10) : 0;
	long parent = *end == ':' ? strtol(end + 1, NULL, 10) : 0;
	if (mem == 0 || cpu == 0 || parent == 0) {
		fail("reading " CUTROOM_LOTTIE_ENV, EINVAL);
		return;
	}
	if (threads() != 1) fail("one thread", EBUSY); // Landlock and seccomp bind this thread and its children
	int e;
	if ((e = limit(RLIMIT_DATA, mem, mem)) != 0) fail("RLIMIT_DATA", e);
	if ((e = limit(RLIMIT_CPU, cpu, RLIM_INFINITY)) != 0) fail("RLIMIT_CPU", e);
	if ((e = limit(RLIMIT_FSIZE, 0, 0)) != 0) fail("RLIMIT_FSIZE", e);
	if ((e = limit(RLIMIT_CORE, 0, 0)) != 0) fail("RLIMIT_CORE", e);
	if ((e = limit(RLIMIT_NOFILE, 32, 32)) != 0) fail("RLIMIT_NOFILE", e);
	if ((e = limit(RLIMIT_MEMLOCK, 0, 0)) != 0) fail("RLIMIT_MEMLOCK", e);
	if ((e = limit(RLIMIT_MSGQUEUE, 0, 0)) != 0) fail("RLIMIT_MSGQUEUE", e);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) fail("PR_SET_PDEATHSIG", errno);
	if (getppid() != parent) fail("parent", ESRCH); // it died before PDEATHSIG was set
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail("PR_SET_NO_NEW_PRIVS", errno);
	cutroom_lottie_confinement.landlock = landlock();
	cutroom_lottie_confinement.seccomp = seccomp();
}
