package illustrations

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// FlattenPath converts the path data of an Illustration (absolute M, L, C and Z commands
// only) into closed polygons, splitting each cubic Bézier into line segments that stray
// from the curve by at most about tolerance units (0 means 0.1). Coordinates are in the
// illustration's view box. It returns an error for any other syntax.
func FlattenPath(d string, tolerance float64) ([][][2]float64, error) {
	if tolerance <= 0 {
		tolerance = 0.1
	}
	f := strings.Fields(d)
	var out [][][2]float64
	var cur [][2]float64
	i := 0
	// read fills v with the next numbers.
	read := func(v []float64) error {
		for k := range v {
			if i >= len(f) {
				return errors.New("path: missing number")
			}
			n, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return errors.New("path: bad number " + strconv.Quote(f[i]))
			}
			v[k] = n
			i++
		}
		return nil
	}
	closeCur := func() {
		if len(cur) >= 3 {
			out = append(out, cur)
		}
		cur = nil
	}
	for i < len(f) {
		c := f[i]
		i++
		switch c {
		case "M", "L":
			if c == "M" {
				closeCur()
			}
			var p [2]float64
			if err := read(p[:]); err != nil {
				return nil, err
			}
			cur = append(cur, p)
		case "C":
			var v [6]float64
			if err := read(v[:]); err != nil {
				return nil, err
			}
			if len(cur) == 0 {
				return nil, errors.New("path: C before M")
			}
			p0 := cur[len(cur)-1]
			// Segment count from the control polygon length (a safe upper bound on the
			// curve length), following the usual sqrt(L / (8 tol)) estimate.
			l := math.Hypot(v[0]-p0[0], v[1]-p0[1]) + math.Hypot(v[2]-v[0], v[3]-v[1]) + math.Hypot(v[4]-v[2], v[5]-v[3])
			n := int(math.Ceil(math.Sqrt(l / (8 * tolerance))))
			n = max(1, min(n, 256))
			for k := 1; k <= n; k++ {
				t := float64(k) / float64(n)
				u := 1 - t
				a, b, cc, dd := u*u*u, 3*u*u*t, 3*u*t*t, t*t*t
				cur = append(cur, [2]float64{
					a*p0[0] + b*v[0] + cc*v[2] + dd*v[4],
					a*p0[1] + b*v[1] + cc*v[3] + dd*v[5],
				})
			}
		case "Z":
			closeCur()
		default:
			return nil, errors.New("path: unsupported command " + strconv.Quote(c))
		}
	}
	closeCur()
	return out, nil
}
