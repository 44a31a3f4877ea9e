package illustrations

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxQuery is the longest query Search considers, in characters;
// longer queries are cut to it.
const MaxQuery = 200

// Search returns the names of built-in illustrations matching q, best first
// (ties by name). An empty or blank q returns every name, sorted.
//
// Matching is fuzzy and case-insensitive: q is split into words (at spaces, '-', '_' and
// punctuation), and every word must match the illustration's name words or tags by one of,
// in falling score: the whole word, a prefix, a substring, one or two typos (Levenshtein
// distance, for words of 4+ and 7+ letters; also against a prefix for words of 5+ letters),
// or a subsequence of the name (e.g. "arwup"
// finds "arrow-up"). Only the first MaxQuery characters of q are used.
func Search(q string) []string {
	hits := SearchWith(q, nil)
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Name
	}
	return out
}

// Sources of a Hit.
const (
	SourceBuiltin   = "builtin"   // the embedded library
	SourceWorkspace = "workspace" // a workspace's own illustration (see ValidName)
)

// Hit is one answer of SearchWith: an illustration's name and where it comes from.
type Hit struct {
	Name   string `json:"name"`
	Source string `json:"source"` // SourceBuiltin or SourceWorkspace
}

// SearchWith searches the built-in library and a workspace's own illustration names
// (extra, which have no tags) together, with Search's rules and ranking: one list, best
// first, ties by name. An empty or blank q returns every name, sorted. A name of extra that
// is also a built-in name is left out (the built-in one answers).
func SearchWith(q string, extra []string) []Hit {
	if utf8.RuneCountInString(q) > MaxQuery {
		q = string([]rune(q)[:MaxQuery])
	}
	words := splitWords(q)
	l := lib()
	cands := make([]Illustration, 0, len(l.list)+len(extra))
	cands = append(cands, l.list...)
	builtin := len(cands)
	for _, n := range extra {
		if _, dup := l.byName[n]; !dup {
			cands = append(cands, Illustration{Name: n})
		}
	}
	source := func(i int) string {
		if i < builtin {
			return SourceBuiltin
		}
		return SourceWorkspace
	}
	if len(words) == 0 {
		out := make([]Hit, len(cands))
		for i, il := range cands {
			out[i] = Hit{il.Name, source(i)}
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
		return out
	}
	if len(words) > 16 {
		words = words[:16]
	}
	type hit struct {
		name   string
		source string
		score  int
	}
	var hits []hit
	for ci, il := range cands {
		nameWords := splitWords(il.Name)
		total := 0
		ok := true
		for _, w := range words {
			best := 0
			for _, nw := range nameWords {
				if s := wordScore(w, nw); s > 0 {
					best = max(best, s+5) // name words weigh a little more
				}
			}
			for _, t := range il.Tags {
				best = max(best, wordScore(w, t))
			}
			if best == 0 {
				if isSubsequence(w, strings.ReplaceAll(il.Name, "-", "")) && len(w) >= 3 {
					best = 20
				} else {
					ok = false
					break
				}
			}
			total += best
		}
		if !ok {
			continue
		}
		if strings.EqualFold(strings.Join(words, "-"), il.Name) {
			total += 1000
		}
		// Shorter names rank first among equals ("star" before "star-outline").
		total = total*100 - min(len(il.Name), 99)
		hits = append(hits, hit{il.Name, source(ci), total})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		return hits[i].name < hits[j].name
	})
	out := make([]Hit, len(hits))
	for i, h := range hits {
		out[i] = Hit{h.name, h.source}
	}
	return out
}

func splitWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// wordScore scores how well query word w matches candidate word c (0: not at all).
func wordScore(w, c string) int {
	switch {
	case w == c:
		return 100
	case strings.HasPrefix(c, w):
		return 70 + 20*len(w)/len(c)
	case len(w) >= 3 && strings.Contains(c, w):
		return 50
	}
	lw := utf8.RuneCountInString(w)
	if lw >= 4 {
		limit := 1
		if lw >= 7 {
			limit = 2
		}
		if d := levenshtein(w, c, limit); d <= limit {
			return 45 - 10*d
		}
		// A typo in a prefix: "arow" for "arrows".
		if lc := utf8.RuneCountInString(c); lw >= 5 && lc > lw {
			if d := levenshtein(w, string([]rune(c)[:lw]), limit); d <= limit {
				return 30 - 10*d
			}
		}
	}
	return 0
}

// levenshtein returns the edit distance of a and b, or limit+1 as soon as it must exceed
// limit.
func levenshtein(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d > limit || -d > limit {
		return limit + 1
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// isSubsequence reports whether the letters of w appear in s in order.
func isSubsequence(w, s string) bool {
	i := 0
	for _, r := range s {
		if i < len(w) && rune(w[i]) == r {
			i++
		}
	}
	return i == len(w)
}
