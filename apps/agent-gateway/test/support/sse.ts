export interface SseEvent {
  id?: string;
  data?: string;
  comment?: string;
}

/** Parses a complete `text/event-stream` body into its events (comments kept, for `: ping`). */
export function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((block) => block.length > 0)
    .map((block) => {
      const event: SseEvent = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) event.comment = line.slice(1).trim();
        else if (line.startsWith('id: ')) event.id = line.slice(4);
        else if (line.startsWith('data: '))
          event.data = (event.data ? `${event.data}\n` : '') + line.slice(6);
      }
      return event;
    });
}
