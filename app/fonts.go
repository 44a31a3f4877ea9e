package app

import (
	"log/slog"
	"os"
	"path/filepath"
	"slices"

	"github.com/cutroom/cutroom/compositor/text"
	"github.com/cutroom/cutroom/server"
)

// newTextLibrary builds the font library text items are drawn with: the fonts embedded in
// the binary, the data dir's fonts directory (operators drop font files there), the
// system's font directories when system is set (--system-fonts), and extra directories
// (--fonts). Uploaded font assets are added by the caller.
func newTextLibrary(dataDir string, extra []string, system bool, log *slog.Logger) (*text.Library, error) {
	dirs := []string{}
	if dataDir != "" {
		dirs = append(dirs, dataFontsDir(dataDir))
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

// dataFontsDir is the data dir's fonts directory, where operators drop font files and
// `cutroom fonts add|import` installs families (fontpack.FontsDir: app does not import
// fontpack, which only the command uses).
func dataFontsDir(dataDir string) string { return filepath.Join(dataDir, "fonts") }

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

// fontFamilies lists the library's families for GET /v1/fonts: the faces of dataFonts (the
// data dir's fonts directory) are told from those of --fonts directories.
func fontFamilies(lib *text.Library, dataFonts string) func() []server.FontFamily {
	return func() []server.FontFamily {
		infos := lib.FamilyInfos()
		out := make([]server.FontFamily, 0, len(infos))
		for _, fi := range infos {
			f := server.FontFamily{Family: fi.Family, Weights: fi.Weights(), Styles: fi.Styles(), Sources: []string{}}
			for _, fc := range fi.Faces { // most preferred source first
				if src := fontSource(fc, dataFonts); !slices.Contains(f.Sources, src) {
					f.Sources = append(f.Sources, src)
				}
			}
			if len(f.Sources) > 0 {
				f.Source = f.Sources[0]
			}
			out = append(out, f)
		}
		return out
	}
}

// fontSource is a face's source as GET /v1/fonts names it.
func fontSource(fc text.FaceInfo, dataFonts string) string {
	switch fc.Source {
	case text.SourceUploaded:
		return server.FontSourceUploaded
	case text.SourceDir:
		if fc.Dir == dataFonts {
			return server.FontSourceDataDir
		}
		return server.FontSourceFontsDir
	case text.SourceEmbedded:
		return server.FontSourceEmbedded
	}
	return server.FontSourceSystem
}
