package server

import (
	"errors"
	"net/http"
	"strings"

	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/storage"
	"github.com/gin-gonic/gin"
)

const principalKey = "cutroom.principal"

func keyInvalid() error {
	return errKeyInvalid.New("a valid API key is required: send it as the x-api-key header or as Authorization: Bearer <key>")
}

// apiKeyFrom returns the key a request carries in x-api-key or Authorization: Bearer.
func apiKeyFrom(r *http.Request) string {
	if k := strings.TrimSpace(r.Header.Get("X-Api-Key")); k != "" {
		return k
	}
	auth := strings.TrimSpace(r.Header.Get("Authorization"))
	if len(auth) > 7 && strings.EqualFold(auth[:7], "bearer ") {
		return strings.TrimSpace(auth[7:])
	}
	return ""
}

// authenticate resolves the request's API key into a principal.
func (s *Server) authenticate(c *gin.Context) {
	key := apiKeyFrom(c.Request)
	if key == "" || len(key) > 256 {
		s.fail(c, keyInvalid())
		return
	}
	p, err := s.deps.Accounts.Authenticate(key)
	if err != nil {
		if errors.Is(err, storage.ErrAPIKeyNotFound) {
			s.fail(c, keyInvalid())
			return
		}
		s.fail(c, err)
		return
	}
	c.Set(principalKey, p)
}

// requireRuntime refuses workspaces whose runtime access is off.
func (s *Server) requireRuntime(c *gin.Context) {
	if !principal(c).Workspace.RuntimeAccess {
		s.fail(c, errRuntimeForbidden.New("The current account is not eligible for this Open API route"))
	}
}

func principal(c *gin.Context) model.Principal {
	v, _ := c.Get(principalKey)
	p, _ := v.(model.Principal)
	return p
}
