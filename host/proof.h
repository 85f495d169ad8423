/*
 * Proof that a listener is the Browser Bridge host: our clients (the
 * stdio bridge, doctor, status) send a random nonce with GET /health and
 * send the bearer token only when the answer carries
 * HMAC-SHA256(token, nonce), which only a holder of the token can compute.
 * A process squatting the port, or holding the port of a host that died,
 * learns nothing.
 */
#ifndef PROOF_H
#define PROOF_H

#include <stdbool.h>

#define PROOF_NONCE_BYTES	16
#define PROOF_NONCE_HEX		(2 * PROOF_NONCE_BYTES)

int	 proof_nonce(char out[PROOF_NONCE_HEX + 1]);
char	*proof_compute(const char *token, const char *nonce);
bool	 proof_check(const char *token, const char *nonce, const char *proof);

#endif
