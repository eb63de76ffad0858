import { EMBED_KEY_LIMITS } from '@pa/contracts';
import { Unauthorized } from '@pa/http-kit';
import { errors, jwtVerify } from 'jose';

// A visitor token (docs/embedding.md): a JWT the host site's server signs with the embed key's visitor secret, so
// that the embed knows who the visitor is without a cookie (a cross-site iframe cannot rely on one). Verified with
// jose: HS256 only (`alg: none` and every other algorithm refused), the key's own secret, `sub` and `exp` required,
// and a short life: `exp` at most an hour after `iat` and after now, so that a leaked token is soon worthless; an
// `iat` further in the future than the clocks may disagree is refused too (jose checks it only with maxTokenAge,
// which would make `iat` required), since `exp − iat` means nothing for a token dated ahead.
// A refusal says why in words, never echoing the token.

export interface Visitor {
  /** the host's id of the visitor */
  sub: string;
  name: string | null;
}

// clocks of the host's server and the gateway may disagree a little
const CLOCK_TOLERANCE_S = 30;
const MAX_TOKEN_LENGTH = 4096;

const refuse = (reason: string) =>
  new Unauthorized('embed-visitor-token-invalid', `The visitor token was refused: ${reason}.`);

export async function verifyVisitorToken(
  token: string,
  secret: Uint8Array,
  now: Date = new Date(),
): Promise<Visitor> {
  if (token.length > MAX_TOKEN_LENGTH) throw refuse('it is too long');
  let payload;
  try {
    ({ payload } = await jwtVerify(token, secret, {
      algorithms: ['HS256'],
      requiredClaims: ['sub', 'exp'],
      clockTolerance: CLOCK_TOLERANCE_S,
      currentDate: now,
    }));
  } catch (err) {
    throw refuse(reasonOf(err));
  }
  const nowS = Math.floor(now.getTime() / 1000);
  const maxLife = EMBED_KEY_LIMITS.visitorTokenMaxSeconds;
  const exp = payload.exp!;
  if (exp - nowS > maxLife + CLOCK_TOLERANCE_S) {
    throw refuse(`it lives longer than ${maxLife / 60} minutes (exp is too far away)`);
  }
  if (payload.iat !== undefined && payload.iat > nowS + CLOCK_TOLERANCE_S) {
    throw refuse('it was issued in the future (iat)');
  }
  if (payload.iat !== undefined && exp - payload.iat > maxLife) {
    throw refuse(`it lives longer than ${maxLife / 60} minutes (exp − iat)`);
  }
  const sub: unknown = payload.sub;
  if (typeof sub !== 'string' || sub.length === 0 || sub.length > EMBED_KEY_LIMITS.visitorSubMax) {
    throw refuse(`sub must be 1–${EMBED_KEY_LIMITS.visitorSubMax} characters`);
  }
  const name = payload.name;
  if (name !== undefined && (typeof name !== 'string' || name.length > EMBED_KEY_LIMITS.visitorNameMax)) {
    throw refuse(`name must be a string of at most ${EMBED_KEY_LIMITS.visitorNameMax} characters`);
  }
  return { sub, name: typeof name === 'string' && name.trim() ? name.trim() : null };
}

function reasonOf(err: unknown): string {
  if (err instanceof errors.JWTExpired) return 'it has expired';
  if (err instanceof errors.JWSSignatureVerificationFailed) {
    return 'its signature does not match this embed key’s visitor secret';
  }
  if (err instanceof errors.JOSEAlgNotAllowed) return 'it must be signed with HS256';
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.reason === 'missing') return `the ${err.claim} claim is missing`;
    if (err.claim === 'nbf') return 'it is not valid yet (nbf)';
    if (err.claim === 'iat') return 'it was issued in the future (iat)';
    return `the ${err.claim} claim is not valid`;
  }
  return 'it is not a well-formed JWT';
}
