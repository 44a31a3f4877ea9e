package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestFlagsDocumented checks that every flag a user can give a cutroom command (hidden
// ones aside) is named, as --name, in the user docs: README.md or docs/*.md.
func TestFlagsDocumented(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	var docs strings.Builder
	for _, p := range append([]string{filepath.Join(repoRoot, "README.md")}, paths...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		docs.Write(b)
	}
	text := docs.String()
	var walk func(cmd *cobra.Command)
	n := 0
	walk = func(cmd *cobra.Command) {
		visit := func(f *pflag.Flag) {
			if f.Hidden || f.Name == "help" {
				return
			}
			n++
			name := "--" + f.Name
			// the name followed by something that cannot continue it (--fonts, not --fonts-x)
			found := false
			for rest := text; !found; {
				i := strings.Index(rest, name)
				if i < 0 {
					break
				}
				rest = rest[i+len(name):]
				found = rest == "" || !strings.ContainsAny(rest[:1], "abcdefghijklmnopqrstuvwxyz0123456789-")
			}
			if !found {
				t.Errorf("%s: the flag %s is in neither README.md nor docs/*.md", cmd.CommandPath(), name)
			}
		}
		cmd.LocalNonPersistentFlags().VisitAll(visit)
		cmd.PersistentFlags().VisitAll(visit)
		for _, sub := range cmd.Commands() {
			if !sub.Hidden {
				walk(sub)
			}
		}
	}
	walk(newRootCmd())
	if n == 0 {
		t.Fatal("no flags found")
	}
}
