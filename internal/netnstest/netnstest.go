// Package netnstest runs a package's tests in a private network namespace, so that no test
// that dials (webhook deliveries, remote asset fetches, outbound guards) can send a packet
// off the machine: as root, Reexec re-executes the test binary under `unshare -n` with the
// loopback interface up; elsewhere the tests run as they are and those that would dial
// outside loopback check InNetns and skip.
package netnstest

import (
	"fmt"
	"os"
	"os/exec"
)

// env marks a test binary already running in its own network namespace.
const env = "CUTROOM_TEST_NETNS"

// InNetns reports whether the tests run in a private network namespace (loopback only).
func InNetns() bool { return os.Getenv(env) == "1" }

// Reexec re-executes the test binary in a private network namespace when the process is
// root, unshare works and it is not in one already; it reports whether it did, with the exit
// code to leave with. When it did not, the caller runs its tests itself (those that would
// dial outside loopback check InNetns). pkg names the package in the notice printed when no
// namespace could be made.
func Reexec(pkg string) (code int, done bool) {
	if InNetns() {
		return 0, false
	}
	if os.Geteuid() == 0 {
		if _, err := exec.LookPath("unshare"); err == nil {
			args := append([]string{"-n", "sh", "-c", `ip link set lo up && exec "$0" "$@"`, os.Args[0]}, os.Args[1:]...)
			cmd := exec.Command("unshare", args...)
			cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
			cmd.Env = append(os.Environ(), env+"=1")
			err := cmd.Run()
			if err == nil {
				return 0, true
			}
			if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() > 0 {
				return ee.ExitCode(), true
			}
		}
	}
	fmt.Fprintf(os.Stderr, "%s tests: no private network namespace; tests that dial outside loopback are skipped\n", pkg)
	return 0, false
}
