package app

import (
	"log/slog"
	"os"
	"path/filepath"

	"github.com/cutroom/cutroom/compositor/text"
)

// newTextLibrary builds the font library text items are drawn with: the fonts embedded in
// the binary, the data dir's fonts directory (operators drop font files there), the
// system's font directories when system is set (--system-fonts), and extra directories
// (--fonts). Uploaded font assets are added by the caller.
func newTextLibrary(dataDir string, extra []string, system bool, log *slog.Logger) (*text.Library, error) {
	dirs := []string{}
	if dataDir != "" {
		dirs = append(dirs, filepath.Join(dataDir, "fonts"))
	}
	dirs = append(dirs, extra...)
	lib, err := text.NewLibrary(text.LibraryOptions{Dirs: dirs, IncludeSystem: system, CacheFile: fontCacheFile()})
	if err != nil {
		return nil, err
	}
	if log != nil {
		log.Debug("font library", "families", len(lib.Families()), "dirs", dirs, "system", system)
		if missing := text.WebFontsMissing(); len(missing) > 0 {
			log.Warn("this binary was built without its web fonts (scripts/fonts.sh): text in them is drawn with Noto Sans",
				"missing", missing)
		}
	}
	return lib, nil
}

// addFonts adds font files to the library, logging (not failing on) files it cannot read.
func addFonts(lib *text.Library, paths []string, log *slog.Logger) {
	for _, p := range paths {
		if err := lib.AddFontFile(p); err != nil && log != nil {
			log.Warn("font file not usable", "path", p, "err", err)
		}
	}
}

// fontCacheFile is where the descriptions of the scanned font files are kept between runs,
// so that a run reads only the font files added or changed since the last (see
// text.LibraryOptions.CacheFile): fonts.cache in the user's cache directory
// ($XDG_CACHE_HOME/cutroom or ~/.cache/cutroom). Empty, and no cache, when there is none.
func fontCacheFile() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "cutroom", "fonts.cache")
}
