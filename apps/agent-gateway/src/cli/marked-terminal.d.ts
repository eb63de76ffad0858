// marked-terminal ships no type declarations (and @types/marked-terminal pins marked < 12): the part cli/markdown.ts
// uses, as documented in its README.
declare module 'marked-terminal' {
  import type { MarkedExtension } from 'marked';

  export interface TerminalRendererOptions {
    /** the width reflowed text wraps at */
    width?: number;
    reflowText?: boolean;
    /** `### ` before a heading's text */
    showSectionPrefix?: boolean;
    /** `:name:` turned into an emoji */
    emoji?: boolean;
    tab?: number | string;
  }

  export function markedTerminal(
    options?: TerminalRendererOptions,
    highlightOptions?: Record<string, unknown>,
  ): MarkedExtension;
}
