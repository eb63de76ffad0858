// The remote-access settings page (issue 37): the admin pastes an admin key once (kept in this tab's
// sessionStorage, shared with the review queue's page), and the page shows what that key may manage: connecting an
// assistant (a remote key, shown once), the key lists, the assistant flags, signed events and the access audit.
import { ApiError, whoami } from './api.js';
import { createAuditSection } from './audit.js';
import { createConnectSection } from './connect.js';
import { createEventsSection } from './events.js';
import { createFlagsSection } from './flags.js';
import { createKeysSection } from './keys.js';
import { problemMessage } from './messages.js';
import { $ } from './page-kit.js';
import { createSignIn } from '../common/sign-in.js';

/** @typedef {import('./types.js').FlagName} FlagName */

const ui = {
  noAccess: $('no-access'),
  settings: $('settings'),
};

let generation = 0; // answers for a key that was forgotten meanwhile are dropped

const signIn = createSignIn({
  neededBy: 'These settings need',
  content: [ui.settings, ui.noAccess],
  open,
  // every secret on show goes with the key
  forget() {
    generation++;
    for (const s of sections) s.reset();
  },
});

/** @type {import('./page-kit.js').PageContext} */
const base = {
  key: signIn.key,
  keyRefused: signIn.keyRefused,
  // every change leaves an audit entry: the list below shows it
  changed: () => void audit.load(),
};

const connect = createConnectSection({ ...base, keyCreated: () => void keys.load() });
const keys = createKeysSection({
  ...base,
  ownKeyRevoked: () => signIn.showKeyForm('Your admin key is revoked. Paste another admin key to go on.'),
  remoteKeyRevoked: (id) => connect.keyRevoked(id),
});
const flags = createFlagsSection({
  ...base,
  flagsChanged(/** @type {Map<FlagName, boolean>} */ state) {
    connect.setWrites(state.get('assistant_bridge_writes') === true);
    events.setFlag(state.get('platform_event_webhooks') === true);
  },
});
const events = createEventsSection(base);
const audit = createAuditSection(base);
const sections = [connect, keys, flags, events, audit];

// ---- opening -------------------------------------------------------------------------------------------------

/**
 * Checks the key with the platform and opens what it may manage. From the key form, the key is stored only once
 * the platform accepted it.
 * @param {string} key
 * @param {{ fromKeyForm?: boolean }} [opts]
 */
async function open(key, { fromKeyForm = false } = {}) {
  const mine = ++generation;
  let me;
  try {
    me = await whoami(key);
  } catch (err) {
    if (mine !== generation) return;
    if (!(err instanceof ApiError)) throw err;
    if (signIn.refusedOnOpen(err, fromKeyForm)) return;
    if (fromKeyForm) return signIn.setKeyError(problemMessage(err));
    // a stored key the platform cannot check just now: ask again rather than show a half-empty page
    return signIn.showKeyForm(problemMessage(err));
  }
  if (mine !== generation) return;
  const mayManage = me.scopes.includes('access:manage');
  ui.noAccess.hidden = mayManage;
  ui.settings.hidden = !mayManage;
  signIn.signedIn(key, `${me.label} · ${me.tenant.name}`, { focus: fromKeyForm });
  if (!mayManage) return;
  connect.setAccount(me);
  await Promise.all([flags.load(), keys.load(), events.load(), audit.load()]);
}

// ---- start ----------------------------------------------------------------------------------------------------

signIn.start();
