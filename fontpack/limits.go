package fontpack

// Defaults of Limits.
const (
	// DefaultMaxDownloadBytes bounds one package tarball fetched from the registry, and one
	// pack file read by Import (compressed bytes).
	DefaultMaxDownloadBytes = 256 << 20
	// DefaultMaxUnpackedBytes bounds the bytes one tarball or pack decompresses to.
	DefaultMaxUnpackedBytes = 1 << 30
	// DefaultMaxFiles bounds the entries of one tarball or pack.
	DefaultMaxFiles = 20000
	// DefaultMaxFileBytes bounds one file kept from a tarball or pack (the font library
	// reads no larger font file).
	DefaultMaxFileBytes = 64 << 20
	// maxMetaBytes bounds the JSON documents read whole: the registry's package metadata,
	// a package's metadata.json and unicode.json, a manifest, a pack's index.
	maxMetaBytes = 32 << 20
)

// Limits bound what fetching and importing read and write; zero values take the defaults
// above.
type Limits struct {
	MaxDownloadBytes int64
	MaxUnpackedBytes int64
	MaxFiles         int
	MaxFileBytes     int64
}

func (l Limits) withDefaults() Limits {
	if l.MaxDownloadBytes <= 0 {
		l.MaxDownloadBytes = DefaultMaxDownloadBytes
	}
	if l.MaxUnpackedBytes <= 0 {
		l.MaxUnpackedBytes = DefaultMaxUnpackedBytes
	}
	if l.MaxFiles <= 0 {
		l.MaxFiles = DefaultMaxFiles
	}
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = DefaultMaxFileBytes
	}
	return l
}
