// Package jsontape is editor's JSON decoder: Decode reads a document once into a Tape, flat
// arrays of nodes that share identical short objects, which both editor's fast JSON-Schema
// check (package fastschema) and its typed view (editor.Parse) read without building
// map[string]any. Tree gives the generic form the schema library takes when the fast
// check does not decide. It lives under editor/internal because only editor and its
// internal packages use it; it imports no cutroom package.
package jsontape

import (
	"encoding/binary"
	"encoding/json"
	"hash/maphash"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth bounds the nesting of decoded JSON; editor states nest about ten levels.
const MaxDepth = 512

// maxNumberLen bounds the length of a number literal.
const maxNumberLen = 1000

// maxExponent is the largest decimal exponent a number keeps as written; see
// CanonicalNumber.
const maxExponent = 400

// CanonicalNumber returns a JSON number literal the schema validator can handle quickly
// and that compares the same way against every bound the schema can state (sign,
// integrality, and order against numbers of at most maxExponent digits). Exact arithmetic
// on a literal like 1e999999 takes tens of milliseconds, so a state full of them would tie
// up the validator: literals with an exponent beyond maxExponent are replaced by
// equivalents with small exponents (±1e401, a 401-digit non-integer, or ±1e-401). It
// reports false for literals longer than maxNumberLen.
func CanonicalNumber(lit string) (string, bool) {
	if len(lit) > maxNumberLen {
		return "", false
	}
	e := strings.IndexAny(lit, "eE")
	if e < 0 {
		return lit, true
	}
	mant, expStr := lit[:e], lit[e+1:]
	exp := 0
	neg := false
	switch {
	case strings.HasPrefix(expStr, "-"):
		neg, expStr = true, expStr[1:]
	case strings.HasPrefix(expStr, "+"):
		expStr = expStr[1:]
	}
	for _, c := range expStr {
		if exp < 1e9 {
			exp = exp*10 + int(c-'0')
		}
	}
	if neg {
		exp = -exp
	}
	if exp >= -maxExponent && exp <= maxExponent {
		return lit, true
	}
	sign := ""
	if strings.HasPrefix(mant, "-") {
		sign, mant = "-", mant[1:]
	}
	intd, fracd, _ := strings.Cut(mant, ".")
	digits := intd + fracd
	lead := len(digits) - len(strings.TrimLeft(digits, "0"))
	digits = strings.TrimRight(digits[lead:], "0")
	if digits == "" {
		return "0", true
	}
	q := len(intd) - lead + exp // digits before the decimal point, relative to digits[0]
	switch {
	case q > maxExponent && len(digits) <= q:
		return sign + "1e" + strconv.Itoa(maxExponent+1), true
	case q > maxExponent:
		return sign + "1" + strings.Repeat("0", maxExponent+1) + ".5", true
	case q < -maxExponent:
		return sign + "1e-" + strconv.Itoa(maxExponent+1), true
	}
	return sign + digits + "e" + strconv.Itoa(q-len(digits)), true
}

// CanonicalTree applies CanonicalNumber to every number (json.Number) of a tree decoded by
// encoding/json with UseNumber, in place, and returns it: the tree the tape's own numbers
// compare equal to (the tests of the tape and of the typed view check against it).
func CanonicalTree(v any) any {
	switch x := v.(type) {
	case json.Number:
		c, _ := CanonicalNumber(string(x))
		return json.Number(c)
	case []any:
		for i := range x {
			x[i] = CanonicalTree(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = CanonicalTree(x[k])
		}
	}
	return v
}

// Kinds of tape nodes (Tape.Kind).
const (
	Null uint8 = iota
	False
	True
	Number
	String
	Array
	Object
)

// Tape is one decoded JSON document in flat arrays, which the fast schema check and the
// typed view both read (the strings of a State built from it are slices of src, so a
// State keeps one copy of the document's text alive): node i is nodes[i], the root is
// nodes[root], and containers list their children in kids. Identical short objects and
// arrays share one node (editor states repeat small objects such as
// {"value":1,"keyframes":[]} thousands of times). Objects have no duplicate member names:
// like encoding/json, the last member with a name wins (see dedupe). A tape is never
// modified after Decode.
type Tape struct {
	src   string   // the document text
	esc   string   // the text of strings with escapes or invalid UTF-8, and rewritten numbers
	nodes []tnode  // every value, each container after its children
	kids  []uint32 // an array's elements, or an object's name and value nodes alternating
	root  uint32
}

// tnode is one value of a tape. A string's text and a number's canonical literal (see
// CanonicalNumber) are n bytes at offset a of src, or of esc when esc is set; an array
// has n elements and an object n members, listed from kids[a].
type tnode struct {
	kind uint8
	esc  bool
	n    uint32
	a    uint32
}

// maxTapeLen bounds the size of a document Decode accepts (offsets are 32 bits).
const maxTapeLen = 1 << 31

// Root returns the node of the top-level value.
func (t *Tape) Root() uint32 { return t.root }

// Kind returns the kind of node i (Null, False, True, Number, String, Array or Object).
func (t *Tape) Kind(i uint32) uint8 { return t.nodes[i].kind }

// Len returns the number of elements of an array node or of members of an object node.
func (t *Tape) Len(i uint32) uint32 { return t.nodes[i].n }

// Text returns the text of a string node or the literal of a number node.
func (t *Tape) Text(i uint32) string {
	n := &t.nodes[i]
	if n.esc {
		return t.esc[n.a : n.a+n.n]
	}
	return t.src[n.a : n.a+n.n]
}

// Members returns an object's name and value nodes, alternating (nil for other kinds).
func (t *Tape) Members(i uint32) []uint32 {
	n := &t.nodes[i]
	if n.kind != Object {
		return nil
	}
	return t.kids[n.a : n.a+2*n.n : n.a+2*n.n]
}

// Elems returns an array's elements (nil for other kinds).
func (t *Tape) Elems(i uint32) []uint32 {
	n := &t.nodes[i]
	if n.kind != Array {
		return nil
	}
	return t.kids[n.a : n.a+n.n : n.a+n.n]
}

// Member returns the value of the object i's member name.
func (t *Tape) Member(i uint32, name string) (uint32, bool) {
	m := t.Members(i)
	for j := 0; j < len(m); j += 2 {
		if t.Text(m[j]) == name {
			return m[j+1], true
		}
	}
	return 0, false
}

// Tree returns node i in the generic form the schema library takes: map[string]any, []any,
// string, json.Number, bool and nil, like encoding/json with UseNumber (duplicate names:
// the last wins; invalid UTF-8 becomes U+FFFD; numbers as CanonicalNumber writes them).
// The validator only builds it when the fast path does not pass a document.
func (t *Tape) Tree(i uint32) any {
	n := &t.nodes[i]
	switch n.kind {
	case False:
		return false
	case True:
		return true
	case Number:
		return json.Number(t.Text(i))
	case String:
		return t.Text(i)
	case Array:
		a := make([]any, n.n)
		for j, e := range t.Elems(i) {
			a[j] = t.Tree(e)
		}
		return a
	case Object:
		m := t.Members(i)
		o := make(map[string]any, len(m)/2)
		for j := 0; j < len(m); j += 2 {
			o[t.Text(m[j])] = t.Tree(m[j+1])
		}
		return o
	}
	return nil
}

// Decode decodes one JSON value, like encoding/json but with a depth limit (MaxDepth)
// and a length limit on number literals (maxNumberLen); syntax errors give the byte
// offset. It scans the text once; strings without escapes and numbers are not copied
// (they are slices of one copy of data).
func Decode(data []byte) (*Tape, error) {
	if len(data) >= maxTapeLen {
		return nil, &syntaxError{msg: "document too large", pos: 0}
	}
	d := tapeDecoder{data: data}
	d.t.src = string(data)
	d.t.nodes = make([]tnode, 0, len(data)/16+16)
	d.t.kids = make([]uint32, 0, len(data)/16+16)
	for k := range d.lits { // nodes 0, 1 and 2: null, false and true
		d.lits[k] = d.add(tnode{kind: uint8(k)})
	}
	d.skipSpace()
	root, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.skipSpace()
	if d.pos != len(d.data) {
		return nil, d.errorf("invalid character after top-level value")
	}
	d.t.root = root
	d.t.esc = string(d.esc)
	return &d.t, nil
}

type tapeDecoder struct {
	data  []byte
	pos   int
	t     Tape
	esc   []byte             // becomes t.esc
	stack []uint32           // children of the open containers
	trees shareTable         // short objects and arrays by their text (see container)
	long  [MaxDepth + 1]bool // whether the last container decoded at a depth was long
	lits  [3]uint32          // the shared null, false and true nodes
	dup   []uint32           // hash table of hasDuplicate
	seed  maphash.Seed
	// unique holds lists of names of objects without duplicates (see hasDuplicate).
	unique     [8][]string
	nextUnique int
}

// internLimit bounds the table of shared containers.
const internLimit = 1 << 16

// shareTable maps the texts of short containers (slices of the document) to their
// nodes: an open-addressing hash table, at most half full, without pointers for the
// garbage collector to follow.
type shareTable struct {
	seed  maphash.Seed
	slots []shareSlot // a power of two of them
	count int
}

type shareSlot struct {
	hash       uint64 // 0: empty
	start, end uint32 // the text is src[start:end]
	node       uint32
}

// hash returns the (non-zero) hash of a container's text.
func (t *shareTable) hash(text string) uint64 {
	if t.slots == nil {
		t.seed = maphash.MakeSeed()
		t.slots = make([]shareSlot, 1024)
	}
	return maphash.String(t.seed, text) | 1
}

// get returns the node of the text src[start:end] with the given hash.
func (t *shareTable) get(src string, hash uint64, start, end int) (uint32, bool) {
	mask := uint64(len(t.slots) - 1)
	for i := hash & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.hash == 0 {
			return 0, false
		}
		if s.hash == hash && int(s.end-s.start) == end-start && src[s.start:s.end] == src[start:end] {
			return s.node, true
		}
	}
}

// put adds the node of a text that get did not find.
func (t *shareTable) put(hash uint64, start, end int, node uint32) {
	if t.count >= internLimit {
		return
	}
	if 2*(t.count+1) > len(t.slots) {
		old := t.slots
		t.slots = make([]shareSlot, 2*len(old))
		for _, s := range old {
			if s.hash != 0 {
				t.insert(s)
			}
		}
	}
	t.insert(shareSlot{hash: hash, start: uint32(start), end: uint32(end), node: node})
	t.count++
}

func (t *shareTable) insert(s shareSlot) {
	mask := uint64(len(t.slots) - 1)
	i := s.hash & mask
	for t.slots[i].hash != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = s
}

type syntaxError struct {
	msg string
	pos int
}

func (e *syntaxError) Error() string { return e.msg + " at offset " + strconv.Itoa(e.pos) }

func (d *tapeDecoder) errorf(msg string) error { return &syntaxError{msg: msg, pos: d.pos} }

func (d *tapeDecoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *tapeDecoder) add(n tnode) uint32 {
	d.t.nodes = append(d.t.nodes, n)
	return uint32(len(d.t.nodes) - 1)
}

func (d *tapeDecoder) value(depth int) (uint32, error) {
	if d.pos >= len(d.data) {
		return 0, d.errorf("unexpected end of JSON input")
	}
	switch c := d.data[d.pos]; {
	case c == '{' || c == '[':
		return d.container(c, depth)
	case c == '"':
		return d.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	case c == 't':
		return d.literal("true", True)
	case c == 'f':
		return d.literal("false", False)
	case c == 'n':
		return d.literal("null", Null)
	}
	return 0, d.errorf("invalid character looking for beginning of value")
}

func (d *tapeDecoder) literal(lit string, kind uint8) (uint32, error) {
	if len(d.data)-d.pos < len(lit) || string(d.data[d.pos:d.pos+len(lit)]) != lit {
		return 0, d.errorf("invalid literal")
	}
	d.pos += len(lit)
	return d.lits[kind], nil
}

// maxSharedLen is the length of the longest object or array text whose node is shared by
// every identical occurrence in the document.
const maxSharedLen = 128

// container decodes an object or array. When its text is short and was seen before, it
// returns the earlier node without decoding it again.
func (d *tapeDecoder) container(c byte, depth int) (uint32, error) {
	end := -1
	var hash uint64
	// Within MaxDepth-maxSharedLen, a value of at most maxSharedLen bytes decodes the
	// same at every depth.
	shared := depth < MaxDepth-maxSharedLen
	if shared && !d.long[depth] {
		end = scanShort(d.data, d.pos)
		if end < 0 {
			// Its next siblings are likely long too (items in items, say): decode them
			// without looking for their end first.
			d.long[depth] = true
		} else {
			hash = d.trees.hash(d.t.src[d.pos:end])
			if j, ok := d.trees.get(d.t.src, hash, d.pos, end); ok {
				d.pos = end
				return j, nil
			}
		}
	}
	start := d.pos
	var i uint32
	var err error
	if c == '{' {
		i, err = d.object(depth + 1)
	} else {
		i, err = d.array(depth + 1)
	}
	if err != nil {
		return 0, err
	}
	if c == '{' {
		d.dedupe(i)
	}
	switch {
	case end > 0 && d.pos == end:
		d.trees.put(hash, start, end, i)
	case shared && end < 0 && d.pos-start <= maxSharedLen:
		// A short one after long ones: look for the ends of the next ones again, and
		// share this one from now on.
		d.long[depth] = false
		hash = d.trees.hash(d.t.src[start:d.pos])
		if _, ok := d.trees.get(d.t.src, hash, start, d.pos); !ok {
			d.trees.put(hash, start, d.pos, i)
		}
	}
	return i, nil
}

// scanShort returns the offset just past the object or array starting at b[start] when
// it ends within maxSharedLen bytes (counting brackets outside strings; the text is only
// a key of the table of shared containers, decoding checks it), and -1 otherwise.
func scanShort(b []byte, start int) int {
	level := 0
	end := min(len(b), start+maxSharedLen)
	for i := start; i < end; i++ {
		switch b[i] {
		case '{', '[':
			level++
		case '}', ']':
			level--
			if level == 0 {
				return i + 1
			}
		case '"':
			for i++; i < end && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		}
	}
	return -1
}

// close adds a container node whose children are the stack from base.
func (d *tapeDecoder) close(kind uint8, base int, n int) uint32 {
	a := len(d.t.kids)
	d.t.kids = append(d.t.kids, d.stack[base:]...)
	d.stack = d.stack[:base]
	return d.add(tnode{kind: kind, n: uint32(n), a: uint32(a)})
}

// open steps into the container whose opening bracket is at d.pos; done is true, and the
// closing bracket consumed, when the container is empty.
func (d *tapeDecoder) open(depth int, closer byte) (done bool, err error) {
	if depth > MaxDepth {
		return false, d.errorf("exceeded max depth")
	}
	d.pos++ // [ or {
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == closer {
		d.pos++
		return true, nil
	}
	return false, nil
}

// next steps over what follows a member or an element: a comma (done is false) or the
// container's closing bracket (done is true); anything else is the error msg.
func (d *tapeDecoder) next(closer byte, msg string) (done bool, err error) {
	d.skipSpace()
	if d.pos >= len(d.data) {
		return false, d.errorf("unexpected end of JSON input")
	}
	switch d.data[d.pos] {
	case ',':
		d.pos++
		return false, nil
	case closer:
		d.pos++
		return true, nil
	}
	return false, d.errorf(msg)
}

func (d *tapeDecoder) object(depth int) (uint32, error) {
	base := len(d.stack)
	done, err := d.open(depth, '}')
	for err == nil && !done {
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return 0, d.errorf("expected object key")
		}
		k, kerr := d.str()
		if kerr != nil {
			return 0, kerr
		}
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return 0, d.errorf("expected ':' after object key")
		}
		d.pos++
		d.skipSpace()
		v, verr := d.value(depth)
		if verr != nil {
			return 0, verr
		}
		d.stack = append(d.stack, k, v)
		done, err = d.next('}', "expected ',' or '}' after object value")
	}
	if err != nil {
		return 0, err
	}
	return d.close(Object, base, (len(d.stack)-base)/2), nil
}

func (d *tapeDecoder) array(depth int) (uint32, error) {
	base := len(d.stack)
	done, err := d.open(depth, ']')
	for err == nil && !done {
		d.skipSpace()
		v, verr := d.value(depth)
		if verr != nil {
			return 0, verr
		}
		d.stack = append(d.stack, v)
		done, err = d.next(']', "expected ',' or ']' after array element")
	}
	if err != nil {
		return 0, err
	}
	return d.close(Array, base, len(d.stack)-base), nil
}

// dedupe removes, from the object node i whose members are the last entries of kids,
// every member whose name occurs again later, keeping its place for the last value (a
// JSON object decodes to a map in which the last member with a name wins).
func (d *tapeDecoder) dedupe(i uint32) {
	nd := &d.t.nodes[i]
	n := int(nd.n)
	if n < 2 {
		return
	}
	m := d.t.kids[nd.a : nd.a+2*nd.n]
	if !d.hasDuplicate(m) {
		return
	}
	at := make(map[string]int, n) // name -> index in out
	out := make([]uint32, 0, len(m))
	for j := 0; j < len(m); j += 2 {
		name := d.text(m[j])
		if k, ok := at[name]; ok {
			out[k+1] = m[j+1]
			continue
		}
		at[name] = len(out)
		out = append(out, m[j], m[j+1])
	}
	copy(m, out)
	d.t.kids = d.t.kids[:int(nd.a)+len(out)]
	nd.n = uint32(len(out) / 2)
}

// text is Tape.Text during decoding (esc is not a string yet).
func (d *tapeDecoder) text(i uint32) string {
	n := &d.t.nodes[i]
	if n.esc {
		return string(d.esc[n.a : n.a+n.n])
	}
	return d.t.src[n.a : n.a+n.n]
}

// hasDuplicate reports whether two of the member names in m (names and values
// alternating) are equal.
func (d *tapeDecoder) hasDuplicate(m []uint32) bool {
	n := len(m) / 2
	if n <= 8 {
		for j := 2; j < len(m); j += 2 {
			name := d.text(m[j])
			for k := 0; k < j; k += 2 {
				if d.text(m[k]) == name {
					return true
				}
			}
		}
		return false
	}
	// Objects of one kind (items of one type, say) list the same names in the same order:
	// a list of names equal to one seen without duplicates has none.
	for _, names := range d.unique {
		if len(names) == n && d.sameNames(m, names) {
			return false
		}
	}
	// An open-addressing table of member indexes by name hash (seeded, so that no
	// document can make the names collide), at most half full.
	size := 16
	for size < 2*n {
		size *= 2
	}
	if cap(d.dup) < size {
		d.dup = make([]uint32, size)
		d.seed = maphash.MakeSeed()
	}
	tab := d.dup[:size]
	clear(tab)
	mask := uint(size - 1)
	for j := 0; j < len(m); j += 2 {
		name := d.text(m[j])
		for h := uint(maphash.String(d.seed, name)) & mask; ; h = (h + 1) & mask {
			if tab[h] == 0 {
				tab[h] = uint32(j) + 1
				break
			}
			if d.text(m[tab[h]-1]) == name {
				return true
			}
		}
	}
	if n <= maxUniqueNames {
		// Remember the names, replacing the oldest list when the cache is full.
		slot := d.nextUnique % len(d.unique)
		d.nextUnique++
		names := d.unique[slot][:0]
		for j := 0; j < len(m); j += 2 {
			names = append(names, d.text(m[j]))
		}
		d.unique[slot] = names
	}
	return false
}

// maxUniqueNames is the length of the longest list of names hasDuplicate remembers.
const maxUniqueNames = 128

// sameNames reports whether the member names in m are names, in order.
func (d *tapeDecoder) sameNames(m []uint32, names []string) bool {
	for j, name := range names {
		if d.text(m[2*j]) != name {
			return false
		}
	}
	return true
}

// str decodes a string starting at the opening quote.
func (d *tapeDecoder) str() (uint32, error) {
	start := d.pos + 1
	i := start
	// Skip eight bytes at a time while none is a quote, a backslash, a control character
	// or non-ASCII (the tests may report a byte after the first such byte too; the loop
	// below decides).
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for i+8 <= len(d.data) {
		x := binary.LittleEndian.Uint64(d.data[i:])
		q, b := x^(ones*'"'), x^(ones*'\\')
		if ((q-ones)&^q|(b-ones)&^b|(x-ones*0x20)&^x|x)&highs != 0 {
			break
		}
		i += 8
	}
	// Fast path: no escapes, no control characters, valid UTF-8.
	var high byte // the OR of the bytes from i: below utf8.RuneSelf means ASCII
	for i < len(d.data) {
		c := d.data[i]
		high |= c
		if c == '"' {
			d.pos = i + 1
			if high >= utf8.RuneSelf && !utf8.Valid(d.data[start:i]) {
				return d.slowString(start)
			}
			return d.add(tnode{kind: String, n: uint32(i - start), a: uint32(start)}), nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		i++
	}
	return d.slowString(start)
}

// slowString decodes a string with escapes or invalid UTF-8, starting after the quote,
// into esc.
func (d *tapeDecoder) slowString(start int) (uint32, error) {
	buf := d.esc
	from := len(buf)
	i := start
	for {
		if i >= len(d.data) {
			d.pos = i
			return 0, d.errorf("unexpected end of JSON input in string")
		}
		c := d.data[i]
		switch {
		case c == '"':
			d.pos = i + 1
			d.esc = buf
			return d.add(tnode{kind: String, esc: true, n: uint32(len(buf) - from), a: uint32(from)}), nil
		case c < 0x20:
			d.pos = i
			return 0, d.errorf("invalid control character in string")
		case c == '\\':
			if i+1 >= len(d.data) {
				d.pos = i
				return 0, d.errorf("unexpected end of JSON input in string")
			}
			e := d.data[i+1]
			i += 2
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, ok := hex4(d.data, i)
				if !ok {
					d.pos = i
					return 0, d.errorf("invalid \\u escape in string")
				}
				i += 4
				if utf16.IsSurrogate(r) {
					// A valid pair combines; anything else is U+FFFD (like encoding/json).
					if r2, ok := hex4(d.data, i+2); ok && i+1 < len(d.data) && d.data[i] == '\\' && d.data[i+1] == 'u' {
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							i += 6
							buf = utf8.AppendRune(buf, dec)
							break
						}
					}
					r = utf8.RuneError
				}
				buf = utf8.AppendRune(buf, r)
			default:
				d.pos = i - 1
				return 0, d.errorf("invalid escape in string")
			}
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			i++
		default:
			r, size := utf8.DecodeRune(d.data[i:])
			if r == utf8.RuneError && size == 1 {
				buf = utf8.AppendRune(buf, utf8.RuneError)
			} else {
				buf = append(buf, d.data[i:i+size]...)
			}
			i += size
		}
	}
}

// digits returns the end of the one or more decimal digits at i of a number; with none
// there, the number is invalid at i.
func (d *tapeDecoder) digits(i int) (int, error) {
	j := i
	for j < len(d.data) && d.data[j] >= '0' && d.data[j] <= '9' {
		j++
	}
	if j == i {
		d.pos = i
		return 0, d.errorf("invalid number")
	}
	return j, nil
}

// number scans a JSON number. Literals with a large exponent are rewritten (see
// CanonicalNumber).
func (d *tapeDecoder) number() (uint32, error) {
	start := d.pos
	i := d.pos
	n := len(d.data)
	if i < n && d.data[i] == '-' {
		i++
	}
	var err error
	if i < n && d.data[i] == '0' {
		i++
	} else if i, err = d.digits(i); err != nil {
		return 0, err
	}
	if i < n && d.data[i] == '.' {
		if i, err = d.digits(i + 1); err != nil {
			return 0, err
		}
	}
	exp := false
	if i < n && (d.data[i] == 'e' || d.data[i] == 'E') {
		exp = true
		i++
		if i < n && (d.data[i] == '+' || d.data[i] == '-') {
			i++
		}
		if i, err = d.digits(i); err != nil {
			return 0, err
		}
	}
	d.pos = i
	if !exp && i-start <= maxNumberLen {
		return d.add(tnode{kind: Number, n: uint32(i - start), a: uint32(start)}), nil
	}
	lit := d.t.src[start:i]
	c, ok := CanonicalNumber(lit)
	if !ok {
		d.pos = start
		return 0, d.errorf("number literal longer than " + strconv.Itoa(maxNumberLen) + " characters")
	}
	if c == lit {
		return d.add(tnode{kind: Number, n: uint32(len(lit)), a: uint32(start)}), nil
	}
	from := len(d.esc)
	d.esc = append(d.esc, c...)
	return d.add(tnode{kind: Number, esc: true, n: uint32(len(c)), a: uint32(from)}), nil
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	return r, true
}
