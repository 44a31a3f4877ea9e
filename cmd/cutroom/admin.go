package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cutroom/cutroom/app"
	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/storage"
	"github.com/spf13/cobra"
)

// adminLockTimeout is how long the admin subcommands (and `cutroom export --workspace`) wait
// for the database's lock. The database allows one process, so they work while the server
// is stopped, and say so clearly (after this wait) while it runs.
const adminLockTimeout = time.Second

// withDB runs fn on the database (--database's, or the data dir's), opened by an App that
// opens only the database (App.OpenDB) and closed when fn returns.
func withDB(g *globalFlags, fn func(db *storage.DB) error) error {
	a := app.New(app.Config{DataDir: g.dataDir, Database: g.database, DatabaseWait: g.databaseWait, LockTimeout: adminLockTimeout})
	defer a.Close()
	if err := a.OpenDB(); err != nil {
		return err
	}
	if a.DB == nil {
		return errors.New("--data-dir is required")
	}
	return fn(a.DB)
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

type workspaceView struct {
	ID               string `json:"id"`
	Name             string `json:"name"`
	RuntimeAccess    bool   `json:"runtimeAccess"`
	WebhookSecretSet bool   `json:"webhookSecretSet"`
	Credits          string `json:"credits"` // a whole number, or "unlimited"
	Allow60FPS       bool   `json:"allow60fps"`
	MaxOutputSide    int    `json:"maxOutputSide"` // 0: only the server's cap
	CreatedAt        string `json:"createdAt"`
}

func viewWorkspace(db *storage.DB, ws model.Workspace) (workspaceView, error) {
	bal, limited, err := db.WorkspaceCredits(ws.ID)
	if err != nil {
		return workspaceView{}, err
	}
	credits := "unlimited"
	if limited {
		credits = strconv.FormatInt(bal, 10)
	}
	return workspaceView{ID: ws.ID, Name: ws.Name, RuntimeAccess: ws.RuntimeAccess,
		WebhookSecretSet: ws.WebhookSecret != "", Credits: credits, Allow60FPS: !ws.Deny60FPS,
		MaxOutputSide: ws.MaxOutputSide, CreatedAt: model.Timestamp(ws.CreatedAt)}, nil
}

func printWorkspaces(w io.Writer, db *storage.DB, asJSON bool, wss ...model.Workspace) error {
	views := make([]workspaceView, 0, len(wss))
	for _, ws := range wss {
		v, err := viewWorkspace(db, ws)
		if err != nil {
			return err
		}
		views = append(views, v)
	}
	if asJSON {
		return printJSON(w, views)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tRUNTIME ACCESS\tWEBHOOK SECRET\tCREDITS\t60 FPS\tMAX SIDE\tCREATED")
	for _, v := range views {
		secret := "unset"
		if v.WebhookSecretSet {
			secret = "set"
		}
		side := "server"
		if v.MaxOutputSide > 0 {
			side = strconv.Itoa(v.MaxOutputSide)
		}
		fmt.Fprintf(tw, "%s\t%s\t%t\t%s\t%s\t%t\t%s\t%s\n", v.ID, v.Name, v.RuntimeAccess, secret, v.Credits, v.Allow60FPS, side, v.CreatedAt)
	}
	return tw.Flush()
}

// adminError gives storage's refusals the messages the admin commands print; ref is the
// workspace name or id, or the key id, the command was given.
func adminError(err error, ref string) error {
	switch {
	case errors.Is(err, storage.ErrWorkspaceNotFound):
		return fmt.Errorf("no workspace %q", ref)
	case errors.Is(err, storage.ErrWorkspaceExists):
		return fmt.Errorf("a workspace named %q exists already", ref)
	case errors.Is(err, storage.ErrAPIKeyNotFound):
		return fmt.Errorf("no API key with id %q", ref)
	}
	return err
}

// parseCredits reads a --credits value: a whole number of credits, or "unlimited" (nil).
func parseCredits(v string) (*int64, error) {
	if strings.EqualFold(strings.TrimSpace(v), "unlimited") {
		return nil, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < 0 {
		return nil, fmt.Errorf("--credits must be a whole number of credits (0 or more) or \"unlimited\", got %q", v)
	}
	return &n, nil
}

func newWorkspacesCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{Use: "workspaces", Short: "Manage workspaces (with the server stopped on bbolt; at any time with --database)"}
	var asJSON bool
	cmd.PersistentFlags().BoolVar(&asJSON, "json", false, "print JSON")

	var runtime bool
	var secret string
	create := &cobra.Command{
		Use: "create NAME", Short: "Create a workspace", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in := storage.WorkspaceInput{Name: args[0], RuntimeAccess: &runtime}
			if cmd.Flags().Changed("webhook-secret") {
				in.WebhookSecret = &secret
			}
			return withDB(g, func(db *storage.DB) error {
				ws, err := db.CreateWorkspace(in)
				if err != nil {
					return adminError(err, strings.TrimSpace(args[0]))
				}
				return printWorkspaces(cmd.OutOrStdout(), db, asJSON, ws)
			})
		},
	}
	create.Flags().BoolVar(&runtime, "runtime-access", true, "allow the runtime routes (projects, uploads, assets, exports)")
	create.Flags().StringVar(&secret, "webhook-secret", "", "secret that signs this workspace's webhooks")

	list := &cobra.Command{
		Use: "list", Short: "List workspaces", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withDB(g, func(db *storage.DB) error {
				wss, err := db.Workspaces()
				if err != nil {
					return err
				}
				return printWorkspaces(cmd.OutOrStdout(), db, asJSON, wss...)
			})
		},
	}

	var uRuntime, uAllow60 bool
	var uSecret, uCredits string
	var uMaxSide int
	update := &cobra.Command{
		Use:   "update NAME|ID",
		Short: "Change a workspace's runtime access, webhook secret, credits or entitlements",
		Example: "  cutroom workspaces update acme --credits 100 --allow-60fps=false --max-output-side 1920\n" +
			"  cutroom workspaces update acme --credits unlimited",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var in storage.WorkspaceInput
			fl := cmd.Flags()
			if fl.Changed("runtime-access") {
				in.RuntimeAccess = &uRuntime
			}
			if fl.Changed("webhook-secret") {
				in.WebhookSecret = &uSecret
			}
			if fl.Changed("allow-60fps") {
				in.Allow60FPS = &uAllow60
			}
			if fl.Changed("max-output-side") {
				if uMaxSide < 0 {
					return fmt.Errorf("--max-output-side must be 0 (no workspace cap) or a number of pixels")
				}
				in.MaxOutputSide = &uMaxSide
			}
			var credits *int64
			if fl.Changed("credits") {
				var err error
				if credits, err = parseCredits(uCredits); err != nil {
					return err
				}
			}
			if in.RuntimeAccess == nil && in.WebhookSecret == nil && in.Allow60FPS == nil && in.MaxOutputSide == nil && !fl.Changed("credits") {
				return fmt.Errorf("nothing to change: give --runtime-access, --webhook-secret, --credits, --allow-60fps and/or --max-output-side")
			}
			return withDB(g, func(db *storage.DB) error {
				ws, err := db.UpdateWorkspace(args[0], in)
				if err != nil {
					return adminError(err, args[0])
				}
				if fl.Changed("credits") {
					if ws, err = db.SetWorkspaceCredits(ws.ID, credits); err != nil {
						return adminError(err, ws.ID)
					}
				}
				return printWorkspaces(cmd.OutOrStdout(), db, asJSON, ws)
			})
		},
	}
	update.Flags().BoolVar(&uRuntime, "runtime-access", true, "allow the runtime routes")
	update.Flags().StringVar(&uSecret, "webhook-secret", "", "secret that signs this workspace's webhooks (empty to unset)")
	update.Flags().StringVar(&uCredits, "credits", "", `set the credit balance: a whole number, or "unlimited" (the default of a new workspace)`)
	update.Flags().BoolVar(&uAllow60, "allow-60fps", true, "allow 60 fps exports")
	update.Flags().IntVar(&uMaxSide, "max-output-side", 0, "largest export side in pixels for this workspace (0: only the server's cap)")
	cmd.AddCommand(create, list, update)
	return cmd
}

type keyView struct {
	ID          string  `json:"id"`
	WorkspaceID string  `json:"workspaceId"`
	Name        string  `json:"name"`
	Hint        string  `json:"hint"`
	CreatedAt   string  `json:"createdAt"`
	RevokedAt   *string `json:"revokedAt"`
}

func viewKey(k model.APIKey) keyView {
	v := keyView{ID: k.ID, WorkspaceID: k.WorkspaceID, Name: k.Name, Hint: k.Hint, CreatedAt: model.Timestamp(k.CreatedAt)}
	if k.RevokedAt != nil {
		t := model.Timestamp(*k.RevokedAt)
		v.RevokedAt = &t
	}
	return v
}

func newKeysCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{Use: "keys", Short: "Manage API keys (with the server stopped on bbolt; at any time with --database)"}
	var asJSON bool
	cmd.PersistentFlags().BoolVar(&asJSON, "json", false, "print JSON")

	var ws, name string
	create := &cobra.Command{
		Use: "create", Short: "Create an API key; the key is printed alone on the last line", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withDB(g, func(db *storage.DB) error {
				k, secret, err := db.CreateKey(ws, name)
				if err != nil {
					return adminError(err, ws)
				}
				out := cmd.OutOrStdout()
				if asJSON {
					return printJSON(out, map[string]any{"key": viewKey(k), "secret": secret})
				}
				fmt.Fprintf(out, "created API key %s for workspace %s (shown once; store it now):\n%s\n", k.ID, ws, secret)
				return nil
			})
		},
	}
	create.Flags().StringVar(&ws, "workspace", storage.DefaultWorkspaceName, "workspace name or id")
	create.Flags().StringVar(&name, "name", "", "a label for the key")

	var lws string
	list := &cobra.Command{
		Use: "list", Short: "List API keys (never their secrets)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withDB(g, func(db *storage.DB) error {
				keys, err := db.Keys(lws)
				if err != nil {
					return adminError(err, lws)
				}
				views := make([]keyView, 0, len(keys))
				for _, k := range keys {
					views = append(views, viewKey(k))
				}
				if asJSON {
					return printJSON(cmd.OutOrStdout(), views)
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tWORKSPACE\tNAME\tHINT\tCREATED\tREVOKED")
				for _, v := range views {
					rev := "-"
					if v.RevokedAt != nil {
						rev = *v.RevokedAt
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", v.ID, v.WorkspaceID, v.Name, v.Hint, v.CreatedAt, rev)
				}
				return tw.Flush()
			})
		},
	}
	list.Flags().StringVar(&lws, "workspace", "", "only this workspace's keys (name or id)")

	revoke := &cobra.Command{
		Use: "revoke ID", Short: "Revoke an API key", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withDB(g, func(db *storage.DB) error {
				k, err := db.RevokeKey(args[0])
				if err != nil {
					return adminError(err, args[0])
				}
				fmt.Fprintf(cmd.OutOrStdout(), "revoked API key %s\n", k.ID)
				return nil
			})
		},
	}
	cmd.AddCommand(create, list, revoke)
	return cmd
}
