// What we read of a WhatsApp Cloud API notification (`entry[].changes[].value`): the text messages and the
// name each sender's profile gives. Statuses (sent, delivered, read), reactions, media and every other kind of
// change are ignored: only text becomes a turn. The notification is loose by contract, so each field is checked
// here before it is used.

export interface IncomingWhatsAppText {
  /** Meta's message id (wamid.…): the update key, so that a redelivery is recognised */
  id: string;
  /** the sender's WhatsApp id (their number, in digits): the chat id */
  from: string;
  /** the sender's profile name, when the notification carries one */
  name: string | null;
  text: string;
  /** the phone number id the message was sent to (metadata.phone_number_id) */
  phoneNumberId: string | null;
}

type Loose = Record<string, unknown>;
const isObject = (v: unknown): v is Loose => typeof v === 'object' && v !== null && !Array.isArray(v);
const objects = (v: unknown): Loose[] => (Array.isArray(v) ? v.filter(isObject) : []);

export function textMessagesOf(notification: { entry: Loose[] }): IncomingWhatsAppText[] {
  const out: IncomingWhatsAppText[] = [];
  for (const entry of objects(notification.entry)) {
    for (const change of objects(entry.changes)) {
      if (change.field !== 'messages' || !isObject(change.value)) continue;
      const value = change.value;
      const metadata = isObject(value.metadata) ? value.metadata : {};
      const phoneNumberId = typeof metadata.phone_number_id === 'string' ? metadata.phone_number_id : null;
      const names = new Map<string, string>();
      for (const contact of objects(value.contacts)) {
        const name = isObject(contact.profile) ? contact.profile.name : undefined;
        if (typeof contact.wa_id === 'string' && typeof name === 'string') names.set(contact.wa_id, name);
      }
      for (const message of objects(value.messages)) {
        if (message.type !== 'text' || !isObject(message.text)) continue;
        const { id, from } = message;
        const body = message.text.body;
        if (typeof id !== 'string' || typeof from !== 'string' || typeof body !== 'string') continue;
        // a WhatsApp id is the sender's number in digits; Meta's newer user ids carry letters, dots and dashes
        if (!id || !/^[A-Za-z0-9._-]{1,64}$/.test(from)) continue;
        out.push({ id, from, name: names.get(from) ?? null, text: body, phoneNumberId });
      }
    }
  }
  return out;
}
