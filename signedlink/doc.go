// Package signedlink makes and checks the signed, expiring links cutroom hands out: asset
// file links (signed by assets) and export output links (signed by export), both checked
// when the server serves them.
//
// A link is path + "?exp=UNIX&sig=HEX", where sig = hex(HMAC-SHA256(secret, path + "\n" +
// exp)), path is the escaped URL path as requested (with the public URL's base path) and exp
// the expiry in Unix seconds. The signature is the link's only authorisation: anyone holding
// the link can fetch the file until it expires.
//
// Decisions:
//   - One secret signs every link (kept in the database, so links survive restarts); the path
//     in the MAC keeps a link for one file from opening another.
//   - The format and the MAC are fixed: links already handed out stay valid across versions
//     (a test checks a link signed by the first implementation).
//   - A malformed or wrong signature is LINK_INVALID and a correct one past its expiry
//     LINK_EXPIRED, both forbidden; callers that answer an expired link differently (export
//     outputs: gone) check the signature alone with Signed and the expiry themselves.
//   - The package imports only the standard library and apierr, so both signers and the
//     server's checks use it without importing one another.
package signedlink
