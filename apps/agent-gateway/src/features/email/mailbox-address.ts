/**
 * An address as the one-mailbox rule compares it (docs/email.md): lower case, and a `+tag` in the local part
 * dropped, so that `Lettings+Leads@Agency.co.uk` and `lettings@agency.co.uk` are the same mailbox.
 */
export function mailboxKey(address: string): string {
  const trimmed = address.trim().toLowerCase();
  const at = trimmed.lastIndexOf('@');
  if (at < 0) return trimmed;
  const local = trimmed.slice(0, at);
  const plus = local.indexOf('+');
  return `${plus < 0 ? local : local.slice(0, plus)}${trimmed.slice(at)}`;
}
