package cutroom_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// userDocs are the files that document cutroom for its users: README.md and docs/*.md. The
// checks that every API code is documented read these.
func userDocs(t *testing.T) map[string]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{}
	for _, p := range append([]string{"README.md"}, paths...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		docs[p] = string(b)
	}
	return docs
}

// ignoredDirs are the patterns of .gitignore's directory lines ("/build/", "/a/*/"): what
// builds and tests write there (the Windows zip's licences, fetched fonts) is not the
// repository's documentation.
var ignoredDirs []string

// ignored tells whether the directory path (slash-separated, relative to the root) is one
// that .gitignore names.
func ignored(t *testing.T, path string) bool {
	t.Helper()
	if ignoredDirs == nil {
		b, err := os.ReadFile(".gitignore")
		if err != nil {
			t.Fatal(err)
		}
		ignoredDirs = []string{}
		for _, line := range strings.Split(string(b), "\n") {
			line = strings.TrimSpace(line)
			if strings.HasPrefix(line, "/") && strings.HasSuffix(line, "/") {
				ignoredDirs = append(ignoredDirs, strings.Trim(line, "/"))
			}
		}
	}
	for _, pat := range ignoredDirs {
		if ok, _ := filepath.Match(pat, filepath.ToSlash(path)); ok {
			return true
		}
	}
	return false
}

// repoFiles lists the repository's files whose names end in suffix, leaving out hidden
// directories, node_modules, the directories .gitignore names and those named in skip.
func repoFiles(t *testing.T, suffix string, skip ...string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || slices.Contains(skip, d.Name()) || ignored(t, path)) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, suffix) {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

var (
	mdLink     = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)\)`)
	codeSpan   = regexp.MustCompile("`[^`]*`")
	mdHeading  = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	htmlAnchor = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
	mdLinkText = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// TestDocLinks checks every relative link of the repository's Markdown files: the file it
// names exists, and its #anchor is a heading of that file (as GitHub makes heading anchors).
func TestDocLinks(t *testing.T) {
	anchors := map[string]map[string]bool{} // file -> its anchors
	anchorsOf := func(path string) (map[string]bool, error) {
		if a, ok := anchors[path]; ok {
			return a, nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		anchors[path] = headingAnchors(string(b))
		return anchors[path], nil
	}
	checked := 0
	for _, file := range repoFiles(t, ".md", "testdata") {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range proseLines(string(b)) {
			for _, m := range mdLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				checked++
				path, anchor, _ := strings.Cut(target, "#")
				dest := file
				if path != "" {
					dest = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
				}
				info, err := os.Stat(dest)
				if err != nil {
					t.Errorf("%s:%d: link %q: %s does not exist", file, i+1, target, dest)
					continue
				}
				if anchor == "" {
					continue
				}
				if info.IsDir() || !strings.HasSuffix(dest, ".md") {
					t.Errorf("%s:%d: link %q: an anchor into %s, which is not a Markdown file", file, i+1, target, dest)
					continue
				}
				a, err := anchorsOf(dest)
				if err != nil {
					t.Fatal(err)
				}
				if !a[anchor] {
					t.Errorf("%s:%d: link %q: %s has no heading with the anchor #%s", file, i+1, target, dest, anchor)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no relative link found in the Markdown files")
	}
}

// proseLines returns the file's lines with those inside fenced code blocks blanked, so
// that line numbers stay those of the file.
func proseLines(s string) []string {
	lines := strings.Split(s, "\n")
	fence := ""
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		switch {
		case fence == "" && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")):
			fence = trimmed[:3]
			lines[i] = ""
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			lines[i] = ""
		}
	}
	return lines
}

// headingAnchors returns the anchors GitHub gives the headings of a Markdown text (and the
// explicit <a id> anchors): the heading's text in lower case without punctuation, spaces
// as dashes, a repeated one suffixed -1, -2, ...
func headingAnchors(s string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, line := range proseLines(s) {
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			anchors[m[1]] = true
		}
		m := mdHeading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		text := mdLinkText.ReplaceAllString(m[1], "$1")
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteByte('-')
			}
		}
		slug := b.String()
		if n := seen[slug]; n > 0 {
			anchors[slug+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	}
	return anchors
}

// TestHeadingAnchors pins the anchor rule TestDocLinks relies on to examples whose GitHub
// anchors are known.
func TestHeadingAnchors(t *testing.T) {
	doc := "# cutroom\n## Rendering without a server: `cutroom export`\n### Text: direction, emoji, fonts\n" +
		"```\n# not a heading\n```\n## Results, session 7: Lottie (issue 19)\n## Logs\n## Logs\n"
	got := headingAnchors(doc)
	for _, want := range []string{"cutroom", "rendering-without-a-server-cutroom-export", "text-direction-emoji-fonts",
		"results-session-7-lottie-issue-19", "logs", "logs-1"} {
		if !got[want] {
			t.Errorf("no anchor #%s in %v", want, got)
		}
	}
	if got["not-a-heading"] {
		t.Errorf("a line in a code block made an anchor")
	}
}
