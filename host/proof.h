/*
 * Proof that a listener is the Browser Bridge host: our clients (the
 * stdio bridge, doctor, status) send a random nonce with GET /health and
 * send the bearer token only when the answer carries
 * HMAC-SHA256(token, nonce), which only a holder of the token can compute.
 * A process squatting the port, or holding the port of a host that died,
 * learns nothing. The same MAC, in its own context, signs MCP session ids,
 * so that a restarted host can tell the sessions it made.
 */
#ifndef PROOF_H
#define PROOF_H

#include <stdbool.h>

#define PROOF_NONCE_BYTES	16
#define PROOF_NONCE_HEX		(2 * PROOF_NONCE_BYTES)

int	 proof_nonce(char out[PROOF_NONCE_HEX + 1]);
/* What a MAC covers besides the nonce, so it means nothing elsewhere. */
#define PROOF_HEALTH	"browser-bridge health proof:"
#define PROOF_SESSION	"browser-bridge session:"

char	*proof_compute(const char *token, const char *context,
	    const char *nonce);
bool	 proof_check(const char *token, const char *context,
	    const char *nonce, const char *proof);

#endif
