package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/cutroom/cutroom/fontpack"
	"github.com/spf13/cobra"
)

// fontSelectFlags are the flags that select a family's faces and subsets (fontpack.Selection).
type fontSelectFlags struct {
	registry string
	weights  []int
	styles   []string
	subsets  []string
}

func (f *fontSelectFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.registry, "registry", fontpack.DefaultRegistry, "npm registry holding the catalogue's @fontsource/<id> packages")
	fl.IntSliceVar(&f.weights, "weights", nil, "weights to install, resolved as a browser resolves font-weight against the family's faces (default all)")
	fl.StringSliceVar(&f.styles, "styles", nil, "styles to install (normal, italic, oblique), resolved as a browser resolves font-style (default all)")
	fl.StringSliceVar(&f.subsets, "subsets", nil, "subsets to install, e.g. latin,latin-ext (default all)")
}

func (f *fontSelectFlags) catalogue() *fontpack.Catalogue {
	return &fontpack.Catalogue{Registry: f.registry}
}

func (f *fontSelectFlags) selection() fontpack.Selection {
	return fontpack.Selection{Weights: f.weights, Styles: f.styles, Subsets: f.subsets}
}

func newFontsCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "fonts",
		Short: "Install web font families into <data-dir>/fonts, and carry them to machines without a connection",
		Long: `Install web font families into <data-dir>/fonts, which the server reads at start.

Families come from the web font catalogue: fontsource's packages on the npm registry
(@fontsource/<id>, every Google Fonts family as WOFF2, each under its own licence). A
family name resolves without regard to case ("TikTok Sans" is @fontsource/tiktok-sans).
"fonts pack" writes families into one file and "fonts import" installs such a file on a
machine without a connection. Restart the server to use what was installed.
See docs/fonts.md ("Font packs").`,
	}
	cmd.AddCommand(newFontsAddCmd(g), newFontsPackCmd(g), newFontsImportCmd(g), newFontsListCmd(g))
	return cmd
}

func newFontsAddCmd(g *globalFlags) *cobra.Command {
	var sf fontSelectFlags
	cmd := &cobra.Command{
		Use:     "add FAMILY...",
		Short:   "Fetch families from the web font catalogue and install them into <data-dir>/fonts",
		Example: `  cutroom fonts add "TikTok Sans" Inter --data-dir /var/lib/cutroom` + "\n" + `  cutroom fonts add Roboto --weights 400,700 --styles normal --subsets latin,latin-ext`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ms, err := fontpack.Add(cmd.Context(), sf.catalogue(), g.dataDir, args, sf.selection())
			if err != nil {
				return err
			}
			printInstalled(cmd.OutOrStdout(), ms, g.dataDir)
			return nil
		},
	}
	sf.add(cmd)
	return cmd
}

func newFontsPackCmd(g *globalFlags) *cobra.Command {
	var sf fontSelectFlags
	var out string
	var fromDataDir bool
	cmd := &cobra.Command{
		Use:   "pack -o FILE FAMILY...",
		Short: "Write families into one file for `cutroom fonts import` on a machine without a connection",
		Long: `Write families into FILE (a tar.gz of their installed directories) for "cutroom fonts
import" on a machine without a connection. The families are fetched from the catalogue as
"fonts add" fetches them, or with --from-data-dir taken from <data-dir>/fonts (checked
against their manifests first). FILE is written whole or not at all.`,
		Example: `  cutroom fonts pack -o fonts.tar.gz "TikTok Sans" Inter`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return errors.New("-o FILE is required")
			}
			sel := sf.selection()
			if fromDataDir && (len(sel.Weights)+len(sel.Styles)+len(sel.Subsets) > 0 || cmd.Flags().Changed("registry")) {
				return errors.New("--from-data-dir packs the installed families as they are: drop --weights, --styles, --subsets and --registry")
			}
			ms, err := fontpack.Pack(cmd.Context(), sf.catalogue(), g.dataDir, fromDataDir, args, sel, out)
			if err != nil {
				return err
			}
			for _, m := range ms {
				fmt.Fprintf(cmd.OutOrStdout(), "packed %s\n", describeFamily(&m))
			}
			fmt.Fprintf(cmd.OutOrStdout(), "into %s\n", out)
			return nil
		},
	}
	sf.add(cmd)
	cmd.Flags().StringVarP(&out, "output", "o", "", "file to write the pack to")
	cmd.Flags().BoolVar(&fromDataDir, "from-data-dir", false, "take the families from <data-dir>/fonts instead of the catalogue")
	return cmd
}

func newFontsImportCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "import FILE",
		Short: "Install the families of a pack made by `cutroom fonts pack` into <data-dir>/fonts",
		Long: `Install the families of a pack made by "cutroom fonts pack" into <data-dir>/fonts. The pack
is checked whole before anything is installed: its layout, bounded sizes, every file
against its family's manifest (size, SHA-256, font signature); a pack that fails any check
installs nothing.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ms, err := fontpack.Import(g.dataDir, args[0], fontpack.Limits{})
			if err != nil {
				return err
			}
			printInstalled(cmd.OutOrStdout(), ms, g.dataDir)
			return nil
		},
	}
}

func newFontsListCmd(g *globalFlags) *cobra.Command {
	var asJSON, verify bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the families installed in <data-dir>/fonts",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ms, loose, err := fontpack.Installed(g.dataDir)
			if err != nil {
				return err
			}
			if verify {
				for _, m := range ms {
					if _, err := fontpack.Verify(filepath.Join(fontpack.FontsDir(g.dataDir), m.ID)); err != nil {
						return err
					}
				}
			}
			if asJSON {
				if ms == nil {
					ms = []fontpack.Manifest{}
				}
				return json.NewEncoder(cmd.OutOrStdout()).Encode(map[string]any{"families": ms, "otherFiles": append([]string{}, loose...)})
			}
			printFamilies(cmd.OutOrStdout(), ms)
			if len(loose) > 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "and %d other font files in %s (not installed by cutroom fonts)\n", len(loose), fontpack.FontsDir(g.dataDir))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the manifests as JSON")
	cmd.Flags().BoolVar(&verify, "verify", false, "check every file against its manifest (size, SHA-256)")
	return cmd
}

// printInstalled says what an add or import installed, and where.
func printInstalled(w io.Writer, ms []fontpack.Manifest, dataDir string) {
	for _, m := range ms {
		fmt.Fprintf(w, "installed %s\n", describeFamily(&m))
	}
	fmt.Fprintf(w, "into %s; restart the server to use them\n", fontpack.FontsDir(dataDir))
}

// printFamilies writes the installed families as a table.
func printFamilies(w io.Writer, ms []fontpack.Manifest) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FAMILY\tVERSION\tWEIGHTS\tSTYLES\tSUBSETS\tFILES\tLICENSE")
	for _, m := range ms {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", m.Family, m.Version, joinInts(m.Weights()),
			strings.Join(m.Styles(), ","), strings.Join(m.Subsets(), ","), len(m.Files), m.Source.License)
	}
	tw.Flush()
}

// describeFamily is one line about an installed family.
func describeFamily(m *fontpack.Manifest) string {
	var size int64
	for _, f := range m.Files {
		size += f.Size
	}
	return fmt.Sprintf("%s %s (%s): weights %s, styles %s, %d subsets, %d files, %d KiB",
		m.Family, m.Version, m.Source.Package, joinInts(m.Weights()), strings.Join(m.Styles(), ","),
		len(m.Subsets()), len(m.Files), (size+1023)/1024)
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}
