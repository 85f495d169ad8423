/* HMAC proofs that a listener holds the token (libsodium). */
#include "proof.h"

#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "random.h"
#include "xmalloc.h"

/* Writes a fresh random nonce in hex. */
int
proof_nonce(char out[PROOF_NONCE_HEX + 1])
{
	return random_hex(out, PROOF_NONCE_BYTES);
}

/* Says whether a nonce is 32 to 128 lowercase hex digits. */
static bool
proof_nonce_valid(const char *nonce)
{
	size_t	len = strlen(nonce), i;

	if (len < PROOF_NONCE_HEX || len > 4 * PROOF_NONCE_HEX)
		return false;
	for (i = 0; i < len; i++) {
		if (strchr("0123456789abcdef", nonce[i]) == NULL)
			return false;
	}
	return true;
}

/*
 * Returns HMAC-SHA256(token, context nonce) in hex, or NULL when the nonce
 * is not a valid one.
 */
char *
proof_compute(const char *token, const char *context, const char *nonce)
{
	crypto_auth_hmacsha256_state	 state;
	unsigned char			 mac[crypto_auth_hmacsha256_BYTES];
	char				*hex;

	if (!proof_nonce_valid(nonce) || sodium_init() < 0)
		return NULL;
	crypto_auth_hmacsha256_init(&state, (const unsigned char *)token,
	    strlen(token));
	crypto_auth_hmacsha256_update(&state,
	    (const unsigned char *)context, strlen(context));
	crypto_auth_hmacsha256_update(&state, (const unsigned char *)nonce,
	    strlen(nonce));
	crypto_auth_hmacsha256_final(&state, mac);
	hex = xmalloc(2 * sizeof mac + 1);
	sodium_bin2hex(hex, 2 * sizeof mac + 1, mac, sizeof mac);
	return hex;
}

/*
 * Says, in constant time, whether proof is the one for token, context and
 * nonce.
 */
bool
proof_check(const char *token, const char *context, const char *nonce,
    const char *proof)
{
	char	*want;
	bool	 ok;

	if (proof == NULL ||
	    (want = proof_compute(token, context, nonce)) == NULL)
		return false;
	ok = strlen(proof) == strlen(want) &&
	    sodium_memcmp(proof, want, strlen(want)) == 0;
	free(want);
	return ok;
}
