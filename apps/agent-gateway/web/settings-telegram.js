// The Settings tab's Telegram section for the worker that answers this chat (docs/channels.md, issue 13): connect a bot
// with its BotFather token, pair a chat with the code, watch the status turn to connected, disconnect. What it shares
// with WhatsApp (loading, the pairing code, checking on a waiting chat, disconnecting) is in settings-channel.js.
//
// The token is read from its password field only to go into the connect request's body, and the field is emptied
// after every submit.
import { ApiError } from './chat-api.js';
import { connectTelegram } from './channels-api.js';
import { el } from './dom.js';
import { channelForm, commandsNote, createChannelSection } from './settings-channel.js';

/** @typedef {import('./channels-api.js').Channel} Channel */
/** @typedef {import('./settings-channel.js').ChannelSectionContext} ChannelSectionContext */

// As packages/contracts/src/channels.ts: `<bot id>:<token>`; the Bot API has the last word.
const TOKEN_PATTERN = /^[0-9]{1,20}:[A-Za-z0-9_-]{20,100}$/;

const MODE_NAMES = { polling: 'Porter checks for new messages', webhook: 'Telegram sends them to Porter' };

/** @param {Channel} c */
const botName = (c) => (c.botUsername ? `@${c.botUsername}` : 'the bot');
/** @param {Channel} c */
const chatName = (c) => c.chat?.title || 'the chat';

/**
 * The connect failure in words, and whether it is about the token.
 * @param {unknown} err
 * @returns {{ message: string, aboutToken: boolean }}
 */
function describeConnectError(err) {
  if (!(err instanceof ApiError)) {
    return { message: 'Something went wrong while connecting. Try again.', aboutToken: false };
  }
  switch (err.code) {
    case 'channel-token-rejected':
      return {
        message:
          'Telegram did not accept this token. Copy it again from BotFather (the whole line, like 123456789:AAF…) and paste it here.',
        aboutToken: true,
      };
    case 'validation-failed':
      return {
        message:
          'That does not look like a bot token. A token looks like 123456789:AAF… — copy it again from BotFather.',
        aboutToken: true,
      };
    case 'channel-unreachable':
      return {
        message:
          'Telegram could not be reached, so nothing was connected. Check the internet connection of the computer Porter runs on, then paste the token and try again.',
        aboutToken: false,
      };
    case 'channel-already-connected':
      return {
        message:
          'This bot is already connected to another assistant. Disconnect it there first, or create a new bot with BotFather for this one.',
        aboutToken: true,
      };
    case 'public-url-required':
      return {
        message:
          'Delivery by webhook needs a public web address for Porter that Telegram can reach, and none is set (PUBLIC_BASE_URL). Choose “Porter checks for new messages” instead, or ask whoever runs Porter to set one; then paste the token again.',
        aboutToken: false,
      };
    default:
      return { message: err.message, aboutToken: false };
  }
}

/**
 * The Telegram section of one worker's card.
 * @param {{ workspaceId: string, worker: { id: string, name: string } }} o
 * @returns {HTMLElement}
 */
export function createTelegramSection(o) {
  return createChannelSection(
    {
      type: 'telegram',
      title: 'Telegram',
      intro: 'Ask Porter from Telegram on your phone and get its answers there.',
      who: 'your chat',
      chatName,
      connectedWords: (c) => `Connected to ${chatName(c)}. Messages there now go to Porter.`,
      leadFacts: (c) => [{ term: 'Bot', value: botName(c), name: 'bot' }],
      moreFacts: (c) => [{ term: 'Messages', value: MODE_NAMES[c.mode] ?? c.mode, name: 'mode' }],
      connectForm,
      channelBody: (c, ctx) => [
        c.status === 'connected'
          ? commandsNote('Messages in that chat are answered by Porter. In the chat, ')
          : c.status === 'pending_pairing'
            ? ctx.renderPairing(c)
            : el('p', {
                class: 'channel-note',
                text: 'Telegram messages are not reaching Porter. Disconnect, then connect the bot again.',
              }),
      ],
      pairingInstruction: (c, code) => [
        'Send ',
        el('kbd', { class: 'pairing-message', text: `/start ${code.pairingCode}` }),
        ` to ${botName(c)} in Telegram, from the chat that should talk to Porter.`,
      ],
      pairingExtras: (c, code) => {
        const link =
          code.pairingLink ??
          (c.botUsername
            ? `https://t.me/${encodeURIComponent(c.botUsername)}?start=${code.pairingCode}`
            : null);
        if (!link) return [];
        return [
          el('a', {
            class: 'button button-primary button-link',
            href: link,
            target: '_blank',
            rel: 'noopener noreferrer',
            text: `Open ${botName(c)} in Telegram`,
          }),
          el('p', {
            class: 'field-hint',
            text: 'The button opens the chat with the code filled in: tap Start. On a computer without Telegram, send the message from your phone.',
          }),
        ];
      },
      disconnectQuestion: (c) =>
        `Disconnect ${botName(c)}? ${c.status === 'connected' ? `${chatName(c)} will` : 'Telegram will'} no longer reach Porter. You can connect the bot again later.`,
      disconnectWords: (c) => ({
        pending: `Disconnecting ${botName(c)}…`,
        done: `Disconnected ${botName(c)}. Telegram no longer reaches Porter.`,
      }),
    },
    o,
  );
}

/**
 * The form that connects a bot: its token and how messages reach Porter.
 * @param {ChannelSectionContext} ctx
 */
function connectForm({ base, busy, showStatus, connect }) {
  const tokenId = `${base}-token`;
  const hintId = `${base}-token-hint`;
  const modeHintIds = { polling: `${base}-mode-polling-hint`, webhook: `${base}-mode-webhook-hint` };
  const token = el('input', {
    id: tokenId,
    name: 'botToken',
    type: 'password',
    class: 'field-input',
    autocomplete: 'off',
    autocapitalize: 'none',
    spellcheck: 'false',
    maxlength: '130',
    required: '',
    'aria-describedby': hintId,
  });
  /** @param {'polling' | 'webhook'} mode @param {string} label @param {string} hint */
  const choice = (mode, label, hint) => {
    const id = `${base}-mode-${mode}`;
    const input = el('input', {
      id,
      type: 'radio',
      name: `${base}-mode`,
      value: mode,
      class: 'choice-input',
      'aria-describedby': modeHintIds[mode],
    });
    if (mode === 'polling') input.checked = true;
    return el('div', { class: 'choice' }, [
      input,
      el('label', { for: id, class: 'choice-label', text: label }),
      el('p', { id: modeHintIds[mode], class: 'field-hint choice-hint', text: hint }),
    ]);
  };
  const form = channelForm(
    'Telegram',
    [
      el('li', {}, [
        'In Telegram, open a chat with ',
        el('strong', { text: '@BotFather' }),
        ', send ',
        el('kbd', { text: '/newbot' }),
        ' and choose a name and a username ending in “bot”. BotFather answers with a token.',
      ]),
      el('li', { text: 'Paste the token below and press Connect Telegram.' }),
      el('li', {
        text: 'Porter then shows a pairing code: send it to your new bot from your own Telegram chat.',
      }),
    ],
    [
      el('div', { class: 'field' }, [
        el('label', { for: tokenId, text: 'Bot token' }),
        token,
        el('p', {
          id: hintId,
          class: 'field-hint',
          text: 'The token from BotFather, a line like 123456789:AAF…; copy all of it. It is kept encrypted.',
        }),
      ]),
      el('fieldset', { class: 'choice-group' }, [
        el('legend', { text: 'How messages reach Porter' }),
        choice(
          'polling',
          'Porter checks for new messages (simplest)',
          'Works anywhere, nothing else to set up: Porter keeps asking Telegram for new messages.',
        ),
        choice(
          'webhook',
          'Telegram sends them to Porter (needs a public address)',
          'Telegram sends each message straight to Porter’s public web address. Only when Porter can be reached from the internet.',
        ),
      ]),
    ],
  );

  token.addEventListener('input', () => token.removeAttribute('aria-invalid'));

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (busy()) return;
    const botToken = token.value.trim();
    const picked = /** @type {HTMLInputElement | null} */ (form.querySelector('input[type="radio"]:checked'));
    const mode = picked?.value === 'webhook' ? 'webhook' : 'polling';
    if (!botToken) {
      token.setAttribute('aria-invalid', 'true');
      showStatus('Paste the bot token from BotFather.', 'error');
      token.focus();
      return;
    }
    token.value = ''; // never kept in the page once submitted
    if (!TOKEN_PATTERN.test(botToken)) {
      token.setAttribute('aria-invalid', 'true');
      showStatus(describeConnectError(new ApiError('', { code: 'validation-failed' })).message, 'error');
      token.focus();
      return;
    }
    token.removeAttribute('aria-invalid');
    await connect({
      request: (workspaceId, workerId) => connectTelegram(workspaceId, workerId, botToken, mode),
      pending: 'Checking the token with Telegram…',
      done: (created) =>
        `Telegram accepted ${botName(created)}. One step left: send the code from your chat.`,
      focus: '.pairing',
      failed: (err) => {
        const { message, aboutToken } = describeConnectError(err);
        if (aboutToken) token.setAttribute('aria-invalid', 'true');
        showStatus(message, 'error');
        token.focus();
      },
    });
  });
  return form;
}
