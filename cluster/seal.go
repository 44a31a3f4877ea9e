package cluster

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Records bound to their job (see the package doc): the secret of each job and the MACs of
// done and fail records.

// MinSecretLength is the shortest CoordinatorConfig.Secret accepted.
const MinSecretLength = 16

// randomSecret is the coordinator's key when none is configured.
func randomSecret() []byte {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand panics rather)
	return b
}

// jobSecret is the secret of segment index of a render (key) of task, keyed with the
// coordinator's secret: the same for every run of the task, so a coordinator that restarts
// takes the records of the jobs an earlier run published.
func jobSecret(coordinator []byte, task, key string, index int, seg Segment) string {
	return mac(coordinator, "job", task, key, index, seg.First, seg.End)
}

// mac is the hex HMAC-SHA256 of the JSON array of fields, keyed with key; "" (which
// signed never accepts) if fields cannot be encoded.
func mac(key []byte, fields ...any) string {
	b, err := json.Marshal(fields)
	if err != nil {
		return ""
	}
	m := hmac.New(sha256.New, key)
	m.Write(b)
	return hex.EncodeToString(m.Sum(nil))
}

// signed reports whether got is the MAC of fields under key.
func signed(got string, key []byte, fields ...any) bool {
	want := mac(key, fields...)
	return want != "" && hmac.Equal([]byte(got), []byte(want))
}

// fields are what the MAC of a done record of segment index of task covers: all of it.
func (d *Done) fields(task string, index int) []any {
	return []any{"done", task, index, d.Key, d.Worker, d.Object, d.Bytes, d.First, d.End, d.RenderSeconds}
}

// fields are what the MAC of a fail record of segment index of task covers: all of it.
func (f *Failure) fields(task string, index int) []any {
	return []any{"fail", task, index, f.Key, f.Worker, f.Code, f.Message, f.First, f.End}
}

// sign sets d's MAC with the secret of job j (the worker's part).
func (d *Done) sign(j *Job) { d.MAC = mac([]byte(j.Secret), d.fields(j.TaskID, j.Index)...) }

// sign sets f's MAC with the secret of job j (the worker's part).
func (f *Failure) sign(j *Job) { f.MAC = mac([]byte(j.Secret), f.fields(j.TaskID, j.Index)...) }

// signedFor reports whether d is signed with secret, the secret of segment index of task.
func (d *Done) signedFor(secret, task string, index int) bool {
	return signed(d.MAC, []byte(secret), d.fields(task, index)...)
}

// signedFor reports whether f is signed with secret, the secret of segment index of task.
func (f *Failure) signedFor(secret, task string, index int) bool {
	return signed(f.MAC, []byte(secret), f.fields(task, index)...)
}
