// The Settings tab's WhatsApp section for the worker that answers this chat (docs/channels.md), beside Telegram:
// connect a WhatsApp Business number of a Meta app (phone number id, access token, app secret, a verify token of the
// user's choosing), put the callback URL into Meta, check the webhook as Meta will, pair the phone that should talk
// to Porter with a code, watch the status turn to connected, disconnect. What it shares with Telegram (loading, the
// pairing code, checking on a waiting chat, disconnecting) is in settings-channel.js.
//
// The secrets are read from their fields only to go into the connect request's body, and the fields are emptied
// after every submit. The verify token is the one value the user must type again in Meta's dashboard, so the one
// given in this page is kept in memory (never in storage) to fill the webhook check.
import { ApiError } from './chat-api.js';
import { checkWhatsAppWebhook, connectWhatsApp, whatsappWebhookPath } from './channels-api.js';
import { el } from './dom.js';
import { channelForm, commandsNote, createChannelSection } from './settings-channel.js';
import { textField } from './settings-fields.js';

/** @typedef {import('./channels-api.js').Channel} Channel */
/** @typedef {import('./settings-channel.js').ChannelSectionContext} ChannelSectionContext */

// As packages/contracts/src/channels.ts (ConnectWhatsAppRequest); the Graph API has the last word.
const PHONE_ID_PATTERN = /^[0-9]{5,30}$/;
const MIN = { accessToken: 10, appSecret: 8, verifyToken: 8 };

/** Verify tokens given in this page, by channel id: they outlive a re-render, not a reload. */
const verifyTokens = /** @type {Map<string, string>} */ (new Map());

/** @typedef {'phoneNumberId' | 'accessToken' | 'appSecret' | 'verifyToken'} FieldName */

/** @type {Record<FieldName, string>} */
const FIELD_WORDS = {
  phoneNumberId: 'phone number ID',
  accessToken: 'access token',
  appSecret: 'app secret',
  verifyToken: 'verify token',
};

/**
 * The chat that talks to Porter: the contact's name and number when WhatsApp gave both.
 * @param {Channel} c
 */
function chatName(c) {
  if (!c.chat) return 'your phone';
  const number = /^[0-9]+$/.test(c.chat.id) ? `+${c.chat.id}` : c.chat.id;
  return c.chat.title ? `${c.chat.title} (${number})` : number;
}

/**
 * The connect failure in words, and the field it is about.
 * @param {unknown} err
 * @returns {{ message: string, field: FieldName | null }}
 */
function describeConnectError(err) {
  if (!(err instanceof ApiError)) {
    return { message: 'Something went wrong while connecting. Try again.', field: null };
  }
  switch (err.code) {
    case 'channel-token-rejected':
      return {
        message: `${err.message} Nothing was connected: paste the access token and app secret again once the details are right.`,
        field: 'accessToken',
      };
    case 'validation-failed': {
      const fields = /** @type {import('./chat-api.js').FieldsApiError} */ (err).fields ?? [];
      const first = fields[0];
      const name = /** @type {FieldName | undefined} */ (first?.pointer.replace(/^#\//, ''));
      if (first && name && name in FIELD_WORDS)
        return { message: `The ${FIELD_WORDS[name]} ${first.detail}.`, field: name };
      return { message: err.message, field: null };
    }
    case 'channel-unreachable':
      return {
        message:
          'WhatsApp could not be reached, so nothing was connected. Check the internet connection of the computer Porter runs on, then paste the access token and app secret again and try again.',
        field: null,
      };
    case 'channel-already-connected':
      return {
        message: 'This WhatsApp number is already connected to another assistant. Disconnect it there first.',
        field: 'phoneNumberId',
      };
    default:
      return { message: err.message, field: null };
  }
}

/** A verify token of 24 letters and digits, for whoever has none in mind. */
function randomVerifyToken() {
  const alphabet = 'abcdefghijkmnpqrstuvwxyzACDEFGHJKLMNPQRSTUVWXYZ23456789';
  return [...crypto.getRandomValues(new Uint8Array(24))].map((b) => alphabet[b % alphabet.length]).join('');
}

/**
 * The WhatsApp section of one worker's card.
 * @param {{ workspaceId: string, worker: { id: string, name: string } }} o
 * @returns {HTMLElement}
 */
export function createWhatsAppSection(o) {
  return createChannelSection(
    {
      type: 'whatsapp',
      title: 'WhatsApp',
      intro: 'Ask Porter from WhatsApp on your phone, through your business’s WhatsApp number in a Meta app.',
      who: 'your phone',
      chatName,
      connectedWords: (c) =>
        `Connected to ${chatName(c)}. WhatsApp messages from that phone now go to Porter.`,
      connectForm,
      channelBody,
      pairingInstruction: (_c, code) => [
        'Once the webhook is saved in Meta, send ',
        el('kbd', { class: 'pairing-message', text: code.pairingCode }),
        ' in WhatsApp to your business number, from the phone that should talk to Porter.',
      ],
      disconnectQuestion: (c) =>
        `Disconnect WhatsApp? ${c.status === 'connected' ? `Messages from ${chatName(c)}` : 'WhatsApp messages'} will no longer reach Porter. You can connect the number again later, with a new callback URL.`,
      disconnectWords: () => ({
        pending: 'Disconnecting WhatsApp…',
        done: 'Disconnected WhatsApp. Messages to your business number no longer reach Porter; you can remove the webhook in Meta.',
      }),
      forget: (id) => verifyTokens.delete(id),
    },
    o,
  );
}

/**
 * @param {string} base the section's id prefix
 * @param {FieldName} name
 * @param {string} label
 * @param {string} hint
 * @param {Record<string, string>} attrs
 */
const field = (base, name, label, hint, attrs) =>
  textField(`${base}-${name}`, name, label, hint, { required: '', ...attrs });

/**
 * The form that connects a number: its details from the Meta app and a verify token.
 * @param {ChannelSectionContext} ctx
 */
function connectForm({ base, busy, showStatus, connect }) {
  const phone = field(
    base,
    'phoneNumberId',
    'Phone number ID',
    'Digits only, from WhatsApp › API Setup in your Meta app (not the phone number itself).',
    { type: 'text', inputmode: 'numeric', maxlength: '30' },
  );
  const token = field(
    base,
    'accessToken',
    'Access token',
    'A permanent token of a system user (Meta Business Settings › System users), with the whatsapp_business_messaging permission. It is kept encrypted.',
    { type: 'password', maxlength: '1000' },
  );
  const secret = field(
    base,
    'appSecret',
    'App secret',
    'From App settings › Basic in your Meta app: Porter checks with it that messages really come from Meta. Kept encrypted.',
    { type: 'password', maxlength: '200' },
  );
  const verify = field(
    base,
    'verifyToken',
    'Verify token',
    'Words of your own (8 characters or more) that you will also type into Meta’s webhook settings.',
    { type: 'text', maxlength: '200' },
  );
  const make = el('button', { type: 'button', class: 'button button-secondary', text: 'Make one for me' });
  make.addEventListener('click', () => {
    verify.input.value = randomVerifyToken();
    verify.input.removeAttribute('aria-invalid');
    verify.input.focus();
  });
  // the button sits beside the field it fills, not with the form's own buttons
  const row = el('div', { class: 'field-row' });
  verify.input.replaceWith(row);
  row.append(verify.input, make);
  const form = channelForm(
    'WhatsApp',
    [
      el('li', {
        text: 'In your Meta app with the WhatsApp product, copy the phone number ID, a permanent access token and the app secret.',
      }),
      el('li', { text: 'Paste them below, choose a verify token, and press Connect WhatsApp.' }),
      el('li', {
        text: 'Porter then shows the callback URL for Meta’s webhook settings and a pairing code to send from your phone.',
      }),
    ],
    [phone.wrap, token.wrap, secret.wrap, verify.wrap],
  );
  /** @type {Record<FieldName, HTMLInputElement>} */
  const inputs = {
    phoneNumberId: phone.input,
    accessToken: token.input,
    appSecret: secret.input,
    verifyToken: verify.input,
  };

  /** @param {FieldName} name @param {string} message */
  const refuse = (name, message) => {
    inputs[name].setAttribute('aria-invalid', 'true');
    showStatus(message, 'error');
    inputs[name].focus();
  };

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (busy()) return;
    const credentials = {
      phoneNumberId: phone.input.value.replace(/\s+/g, ''),
      accessToken: token.input.value.trim(),
      appSecret: secret.input.value.trim(),
      verifyToken: verify.input.value.trim(),
    };
    for (const input of Object.values(inputs)) input.removeAttribute('aria-invalid');
    if (!PHONE_ID_PATTERN.test(credentials.phoneNumberId))
      return refuse(
        'phoneNumberId',
        'The phone number ID is digits only (5 to 30 of them), as WhatsApp › API Setup shows it.',
      );
    if (credentials.accessToken.length < MIN.accessToken)
      return refuse('accessToken', 'Paste the access token from your Meta app.');
    if (credentials.appSecret.length < MIN.appSecret)
      return refuse('appSecret', 'Paste the app secret from App settings › Basic.');
    if (credentials.verifyToken.length < MIN.verifyToken)
      return refuse(
        'verifyToken',
        'Choose a verify token of 8 characters or more, or press Make one for me.',
      );
    // the secrets never stay in the page once submitted
    token.input.value = '';
    secret.input.value = '';
    await connect({
      request: async (workspaceId, workerId) => {
        const created = await connectWhatsApp(workspaceId, workerId, credentials);
        verifyTokens.set(created.id, credentials.verifyToken);
        return created;
      },
      pending: 'Checking the details with WhatsApp…',
      done: () =>
        'WhatsApp accepted the number. Two steps left: the webhook in Meta, then the code from your phone.',
      focus: '.webhook-steps',
      failed: (err) => {
        const { message, field: which } = describeConnectError(err);
        if (which) refuse(which, message);
        else {
          showStatus(message, 'error');
          token.input.focus();
        }
      },
    });
  });
  return form;
}

/**
 * What a channel shows between its facts and its actions: a note on its state, the webhook, and the code to send.
 * @param {Channel} c
 * @param {ChannelSectionContext} ctx
 */
function channelBody(c, ctx) {
  /** @type {Node[]} */
  const parts = [];
  if (c.status === 'connected') {
    parts.push(commandsNote('WhatsApp messages from that phone are answered by Porter. In the chat, '));
  } else if (c.status === 'error') {
    parts.push(
      el('p', {
        class: 'channel-note',
        text: 'WhatsApp messages are not reaching Porter. Check the webhook below; if it answers, disconnect and connect the number again.',
      }),
    );
  }
  // The webhook stays on show once connected: reconnecting in Meta or a changed address needs it again.
  const webhook = renderWebhook(c, ctx);
  if (c.status === 'connected') {
    parts.push(
      el('details', { class: 'advanced webhook-details' }, [
        el('summary', { class: 'advanced-summary', text: 'Webhook in Meta' }),
        webhook,
      ]),
    );
  } else parts.push(webhook);
  if (c.status === 'pending_pairing') parts.push(ctx.renderPairing(c));
  return parts;
}

/**
 * Where Meta must send messages, and a check of it as Meta makes it.
 * @param {Channel} c
 * @param {ChannelSectionContext} ctx
 */
function renderWebhook(c, { base, load }) {
  const url = `${location.origin}${whatsappWebhookPath(c.id)}`;
  const tokenId = `${base}-${c.id}-check-token`;
  const token = el('input', {
    id: tokenId,
    type: 'text',
    class: 'field-input',
    autocomplete: 'off',
    autocapitalize: 'none',
    spellcheck: 'false',
    maxlength: '200',
  });
  token.value = verifyTokens.get(c.id) ?? '';
  const checkButton = el('button', {
    type: 'button',
    class: 'button button-secondary',
    text: 'Check the webhook',
  });
  const result = el('p', { class: 'form-status webhook-result', role: 'status', 'aria-live': 'polite' });
  checkButton.addEventListener('click', () => void checkWebhook(c, token, result, load));
  return el('div', { class: 'webhook-steps', tabindex: '-1' }, [
    el('p', { class: 'webhook-lead' }, [
      'In your Meta app, open ',
      el('strong', { text: 'WhatsApp › Configuration' }),
      ', edit the webhook, and enter:',
    ]),
    el('dl', { class: 'worker-facts webhook-facts' }, [
      el('dt', { text: 'Callback URL' }),
      el('dd', { class: 'webhook-url', 'data-fact': 'callback-url', text: url }),
      el('dt', { text: 'Verify token' }),
      el('dd', { text: 'the one you chose when connecting' }),
    ]),
    el('p', {
      class: 'field-hint',
      text: 'Then subscribe to “messages”. Meta must reach this address over HTTPS from the internet: if Porter has another public address, use that one with the same path.',
    }),
    el('div', { class: 'field webhook-check' }, [
      el('label', { for: tokenId, text: 'Verify token to check' }),
      token,
    ]),
    el('div', { class: 'form-actions' }, [checkButton]),
    result,
  ]);
}

/**
 * @param {Channel} c
 * @param {HTMLInputElement} token
 * @param {HTMLParagraphElement} result
 * @param {() => Promise<void>} load fetches the list again
 */
async function checkWebhook(c, token, result, load) {
  const say = (/** @type {string} */ text, /** @type {string} */ kind) => {
    result.textContent = text;
    result.dataset.kind = kind;
  };
  const value = token.value.trim();
  token.removeAttribute('aria-invalid');
  if (!value) {
    token.setAttribute('aria-invalid', 'true');
    say('Type the verify token you chose when connecting, then check again.', 'error');
    token.focus();
    return;
  }
  say('Checking the webhook as Meta will…', 'pending');
  const { outcome, status: code } = await checkWhatsAppWebhook(c.id, value);
  switch (outcome) {
    case 'verified':
      verifyTokens.set(c.id, value);
      say('The webhook answers this verify token as Meta expects. Meta will accept it.', 'success');
      break;
    case 'token-refused':
      token.setAttribute('aria-invalid', 'true');
      say(
        'The webhook refused this verify token: it is not the one given when connecting. Enter that one, or disconnect and connect again with a new one.',
        'error',
      );
      break;
    case 'not-found':
      say('This WhatsApp connection no longer exists.', 'error');
      void load();
      break;
    case 'unreachable':
      say('Porter’s webhook could not be reached from this browser. Try again in a moment.', 'error');
      break;
    default:
      say(`The webhook answered in a way Meta would not accept (HTTP ${code}).`, 'error');
  }
}
