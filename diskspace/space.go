package diskspace

// Defaults of the floor (Guard's minFree 0).
const (
	// DefaultMinFreeBytes is the most free space the default floor keeps (1 GiB).
	DefaultMinFreeBytes int64 = 1 << 30
	// DefaultMinFreePercent is the share of the filesystem the default floor keeps when that
	// is less than DefaultMinFreeBytes.
	DefaultMinFreePercent = 5
)

// Space is a filesystem's size and the bytes free for cutroom's writes.
type Space struct {
	Free  uint64
	Total uint64
}

// Floor is the free space to keep on a filesystem of total bytes: minFree when positive,
// none when negative, and for zero the smaller of DefaultMinFreeBytes and
// DefaultMinFreePercent of total.
func Floor(minFree int64, total uint64) uint64 {
	switch {
	case minFree > 0:
		return uint64(minFree)
	case minFree < 0:
		return 0
	}
	return min(uint64(DefaultMinFreeBytes), total/100*DefaultMinFreePercent)
}

// Guard refuses new work while the free space of a directory's filesystem is below its
// floor. A nil *Guard admits everything. It is safe for concurrent use.
type Guard struct {
	dir     string
	minFree int64
}

// NewGuard returns the guard of dir's filesystem with floor minFree (see Floor).
func NewGuard(dir string, minFree int64) *Guard {
	return &Guard{dir: dir, minFree: minFree}
}

// State is a guard's reading of its filesystem.
type State struct {
	Space
	// Floor is the free space the guard keeps (0: none).
	Floor uint64
}

// Low reports whether the free space is below the floor.
func (s State) Low() bool { return s.Free < s.Floor }

// State reads the filesystem now.
func (g *Guard) State() (State, error) {
	sp, err := Stat(g.dir)
	if err != nil {
		return State{}, err
	}
	return State{Space: sp, Floor: Floor(g.minFree, sp.Total)}, nil
}

// Admit refuses, with a STORAGE_FULL error, work that would leave less than the floor free:
// need is the bytes it is known to write (0 when unknown). It admits when the free space
// cannot be read.
func (g *Guard) Admit(need int64) error {
	if g == nil || g.minFree < 0 {
		return nil
	}
	st, err := g.State()
	if err != nil {
		return nil
	}
	if st.Free < st.Floor || st.Free-st.Floor < uint64(max(need, 0)) {
		return CodeStorageFull.New("the server's free disk space is below its minimum (--min-free-disk); uploads and new exports are refused until space is freed; nothing was stored").
			WithRetryAfter(RetryAfterSeconds)
	}
	return nil
}
