package editor

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth bounds the nesting of decoded JSON; editor states nest about ten levels.
const maxDepth = 512

// maxNumberLen bounds the length of a number literal.
const maxNumberLen = 1000

// maxExponent is the largest decimal exponent a number keeps as written; see
// canonicalNumber.
const maxExponent = 400

// canonicalNumber returns a JSON number literal the schema validator can handle quickly
// and that compares the same way against every bound the schema can state (sign,
// integrality, and order against numbers of at most maxExponent digits). Exact arithmetic
// on a literal like 1e999999 takes tens of milliseconds, so a state full of them would tie
// up the validator: literals with an exponent beyond maxExponent are replaced by
// equivalents with small exponents (±1e401, a 401-digit non-integer, or ±1e-401). It
// reports false for literals longer than maxNumberLen.
func canonicalNumber(lit string) (string, bool) {
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

// decodeJSON decodes one JSON value into the generic form the schema validator takes:
// map[string]any, []any, string, json.Number, bool and nil, like encoding/json with
// UseNumber (duplicate keys: the last wins; invalid UTF-8 becomes U+FFFD). It is faster
// and allocates less than encoding/json because it scans once and shares repeated keys,
// short strings, numbers, and short objects and arrays within one document (the values
// are never modified).
func decodeJSON(data []byte) (any, error) {
	d := decoder{data: data, keys: map[string]string{}, vals: map[string]any{}, trees: map[string]any{}}
	d.skipSpace()
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.skipSpace()
	if d.pos != len(d.data) {
		return nil, d.errorf("invalid character after top-level value")
	}
	return v, nil
}

type decoder struct {
	data  []byte
	pos   int
	hint  [maxDepth + 2]int // member count of the last object at each depth (a size hint)
	keys  map[string]string // interned object keys
	vals  map[string]any    // interned boxed short strings ("s" + text) and numbers ("n" + text)
	trees map[string]any    // decoded short objects and arrays by their text (see container)
}

// internLimit bounds each intern table.
const internLimit = 1 << 16

type syntaxError struct {
	msg string
	pos int
}

func (e *syntaxError) Error() string { return e.msg + " at offset " + strconv.Itoa(e.pos) }

func (d *decoder) errorf(msg string) error { return &syntaxError{msg: msg, pos: d.pos} }

func (d *decoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) value(depth int) (any, error) {
	if d.pos >= len(d.data) {
		return nil, d.errorf("unexpected end of JSON input")
	}
	switch c := d.data[d.pos]; {
	case c == '{' || c == '[':
		return d.container(c, depth)
	case c == '"':
		return d.strValue()
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	}
	return nil, d.errorf("invalid character looking for beginning of value")
}

// maxSharedLen is the length of the longest object or array text whose decoded value is
// shared by every identical occurrence in the document (editor states repeat small
// objects such as {"value":1,"keyframes":[]} thousands of times).
const maxSharedLen = 256

// container decodes an object or array, sharing the value of a short text seen before.
func (d *decoder) container(c byte, depth int) (any, error) {
	end := -1
	if depth < maxDepth-maxSharedLen {
		// Within maxDepth-maxSharedLen, a value of at most maxSharedLen bytes decodes
		// the same at every depth.
		end = scanShort(d.data, d.pos)
		if end > 0 {
			if v, ok := d.trees[string(d.data[d.pos:end])]; ok {
				d.pos = end
				return v, nil
			}
		}
	}
	start := d.pos
	var v any
	var err error
	if c == '{' {
		v, err = d.object(depth + 1)
	} else {
		v, err = d.array(depth + 1)
	}
	if err == nil && end > 0 && d.pos == end && len(d.trees) < internLimit {
		d.trees[string(d.data[start:end])] = v
	}
	return v, err
}

// scanShort returns the offset just past the object or array starting at b[start] when
// it ends within maxSharedLen bytes (counting brackets outside strings; the text is only
// a cache key, decoding checks it), and -1 otherwise.
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

func (d *decoder) literal(lit string) error {
	if len(d.data)-d.pos < len(lit) || string(d.data[d.pos:d.pos+len(lit)]) != lit {
		return d.errorf("invalid literal")
	}
	d.pos += len(lit)
	return nil
}

func (d *decoder) object(depth int) (any, error) {
	if depth > maxDepth {
		return nil, d.errorf("exceeded max depth")
	}
	d.pos++ // {
	m := make(map[string]any, d.hint[depth])
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return m, nil
	}
	for {
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return nil, d.errorf("expected object key")
		}
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, d.errorf("expected ':' after object key")
		}
		d.pos++
		d.skipSpace()
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		m[k] = v
		d.skipSpace()
		if d.pos >= len(d.data) {
			return nil, d.errorf("unexpected end of JSON input")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case '}':
			d.pos++
			d.hint[depth] = min(len(m), 64)
			return m, nil
		default:
			return nil, d.errorf("expected ',' or '}' after object value")
		}
	}
}

func (d *decoder) array(depth int) (any, error) {
	if depth > maxDepth {
		return nil, d.errorf("exceeded max depth")
	}
	d.pos++ // [
	a := []any{}
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return a, nil
	}
	for {
		d.skipSpace()
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		d.skipSpace()
		if d.pos >= len(d.data) {
			return nil, d.errorf("unexpected end of JSON input")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return a, nil
		default:
			return nil, d.errorf("expected ',' or ']' after array element")
		}
	}
}

// strValue decodes a string value, sharing the boxed value of repeated short strings.
func (d *decoder) strValue() (any, error) {
	start := d.pos
	s, err := d.str()
	if err != nil || len(s) > 32 {
		return s, err
	}
	raw := d.data[start:d.pos] // the quoted form identifies the value
	if v, ok := d.vals[string(raw)]; ok {
		return v, nil
	}
	var v any = s
	if len(d.vals) < internLimit {
		d.vals[string(raw)] = v
	}
	return v, nil
}

// str decodes a string starting at the opening quote. Short strings without escapes are
// shared (object keys repeat in every item).
func (d *decoder) str() (string, error) {
	start := d.pos + 1
	i := start
	// Fast path: no escapes, no control characters, valid UTF-8.
	var high byte // the OR of all bytes: below utf8.RuneSelf means ASCII
	for i < len(d.data) {
		c := d.data[i]
		high |= c
		if c == '"' {
			raw := d.data[start:i]
			d.pos = i + 1
			if high >= utf8.RuneSelf && !utf8.Valid(raw) {
				return d.slowString(start)
			}
			if len(raw) <= 32 {
				if s, ok := d.keys[string(raw)]; ok {
					return s, nil
				}
				s := string(raw)
				if len(d.keys) < internLimit {
					d.keys[s] = s
				}
				return s, nil
			}
			return string(raw), nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		i++
	}
	return d.slowString(start)
}

// slowString decodes a string with escapes or invalid UTF-8, starting after the quote.
func (d *decoder) slowString(start int) (string, error) {
	buf := make([]byte, 0, 64)
	i := start
	for {
		if i >= len(d.data) {
			d.pos = i
			return "", d.errorf("unexpected end of JSON input in string")
		}
		c := d.data[i]
		switch {
		case c == '"':
			d.pos = i + 1
			return string(buf), nil
		case c < 0x20:
			d.pos = i
			return "", d.errorf("invalid control character in string")
		case c == '\\':
			if i+1 >= len(d.data) {
				d.pos = i
				return "", d.errorf("unexpected end of JSON input in string")
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
					return "", d.errorf("invalid \\u escape in string")
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
				return "", d.errorf("invalid escape in string")
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

// number scans a JSON number and returns it as a (shared) boxed json.Number.
func (d *decoder) number() (any, error) {
	start := d.pos
	i := d.pos
	n := len(d.data)
	if i < n && d.data[i] == '-' {
		i++
	}
	switch {
	case i < n && d.data[i] == '0':
		i++
	case i < n && d.data[i] >= '1' && d.data[i] <= '9':
		for i < n && d.data[i] >= '0' && d.data[i] <= '9' {
			i++
		}
	default:
		d.pos = i
		return nil, d.errorf("invalid number")
	}
	if i < n && d.data[i] == '.' {
		i++
		if i >= n || d.data[i] < '0' || d.data[i] > '9' {
			d.pos = i
			return nil, d.errorf("invalid number")
		}
		for i < n && d.data[i] >= '0' && d.data[i] <= '9' {
			i++
		}
	}
	if i < n && (d.data[i] == 'e' || d.data[i] == 'E') {
		i++
		if i < n && (d.data[i] == '+' || d.data[i] == '-') {
			i++
		}
		if i >= n || d.data[i] < '0' || d.data[i] > '9' {
			d.pos = i
			return nil, d.errorf("invalid number")
		}
		for i < n && d.data[i] >= '0' && d.data[i] <= '9' {
			i++
		}
	}
	d.pos = i
	raw := d.data[start:i]
	if v, ok := d.vals[string(raw)]; ok { // numbers never start with '"', strings always do
		return v, nil
	}
	s := string(raw)
	lit, ok := canonicalNumber(s)
	if !ok {
		d.pos = start
		return nil, d.errorf("number literal longer than " + strconv.Itoa(maxNumberLen) + " characters")
	}
	var v any = json.Number(lit)
	if len(d.vals) < internLimit {
		d.vals[s] = v
	}
	return v, nil
}
