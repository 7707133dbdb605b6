/** Quotes expected text for a message, cut to 60 characters (a message is bounded when published). */
export function quoteText(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 59)}…` : text);
}
