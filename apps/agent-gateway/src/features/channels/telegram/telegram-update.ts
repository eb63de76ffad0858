import { z } from 'zod';

// The few fields of a Telegram Update that a chat needs. Updates carry many more and grow new ones, so the schema
// is loose; anything that is not a text message in a chat (a photo, a member joining) is left alone.
const TelegramChat = z.looseObject({
  id: z.number().int(),
  title: z.string().optional(),
  first_name: z.string().optional(),
  last_name: z.string().optional(),
  username: z.string().optional(),
});
const TextUpdate = z.looseObject({
  update_id: z.number().int().min(0),
  message: z.looseObject({ chat: TelegramChat, text: z.string().min(1) }),
});

export interface TelegramText {
  updateKey: string;
  chatId: string;
  chatTitle: string | null;
  text: string;
}

/** The text message an update carries, or null. */
export function telegramText(update: unknown): TelegramText | null {
  const parsed = TextUpdate.safeParse(update);
  if (!parsed.success) return null;
  const { chat, text } = parsed.data.message;
  const person = [chat.first_name, chat.last_name].filter(Boolean).join(' ');
  return {
    updateKey: String(parsed.data.update_id),
    chatId: String(chat.id),
    chatTitle: chat.title ?? (person || (chat.username ? `@${chat.username}` : null)),
    text,
  };
}
