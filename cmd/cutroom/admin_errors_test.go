package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestAdminStorageRefusals: the admin commands print storage's refusals (a sentinel error
// the command maps) as they always have.
func TestAdminStorageRefusals(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) string {
		out, err := exec.Command(binPath, append(args, "--data-dir", dir)...).CombinedOutput()
		if err == nil && !strings.Contains(strings.Join(args, " "), "create acme") {
			t.Errorf("%v succeeded: %s", args, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("workspaces", "create", "acme")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"workspaces", "create", " acme "}, `cutroom: a workspace named "acme" exists already`},
		{[]string{"workspaces", "create", ""}, `cutroom: workspace name must be 1..100 characters`},
		{[]string{"workspaces", "update", "nosuch", "--credits", "1"}, `cutroom: no workspace "nosuch"`},
		{[]string{"keys", "create", "--workspace", "nosuch"}, `cutroom: no workspace "nosuch"`},
		{[]string{"keys", "list", "--workspace", "nosuch"}, `cutroom: no workspace "nosuch"`},
		{[]string{"keys", "revoke", "nope"}, `cutroom: no API key with id "nope"`},
	} {
		if got := run(tc.args...); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.args, got, tc.want)
		}
	}
}
