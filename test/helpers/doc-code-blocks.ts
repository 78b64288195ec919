// Test helper: the parts of a docs/ page that tests hold to the code: a section, its fenced code blocks, and the
// commands of a shell block as the shell would split them.

/**
 * The section under `heading` (`## Workloads`): up to the next heading of its level or above, or the end. A `#`
 * line inside a fenced block is a shell comment, not a heading.
 */
export function docSection(markdown: string, heading: string): string {
  const lines = markdown.split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`no "${heading}" heading`);
  const level = heading.indexOf(' ');
  let fenced = false;
  let end = start + 1;
  for (; end < lines.length; end++) {
    const line = lines[end] as string;
    if (line.startsWith('```')) fenced = !fenced;
    const hashes = /^(#+) /.exec(line)?.[1]?.length;
    if (!fenced && hashes !== undefined && hashes <= level) break;
  }
  return lines.slice(start, end).join('\n');
}

/** The fenced code blocks of one language (```sh ... ```), in order. */
export function codeBlocks(markdown: string, language: string): string[] {
  return [...markdown.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))].map(
    (m) => m[1] ?? '',
  );
}

export interface MarkedBlock {
  /** The block's text, between its fences. */
  readonly text: string;
  /** The `<!-- ... -->` comment on the line above the opening fence (blank lines between allowed), if any. */
  readonly note: string | undefined;
  /** The line of the opening fence, counted from 1, for messages. */
  readonly line: number;
}

/** The fenced blocks of one language with the HTML comment each carries above it (how a page marks an example). */
export function markedBlocks(markdown: string, language: string): MarkedBlock[] {
  const lines = markdown.split('\n');
  const blocks: MarkedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== `\`\`\`${language}`) continue;
    const end = lines.indexOf('```', i + 1);
    if (end < 0) throw new Error(`the block at line ${i + 1} is not closed`);
    let above = i - 1;
    while (above >= 0 && (lines[above] as string).trim() === '') above--;
    const note = /^<!--\s*(.*?)\s*-->$/.exec(lines[above] ?? '')?.[1];
    blocks.push({ text: `${lines.slice(i + 1, end).join('\n')}\n`, note, line: i + 1 });
    i = end;
  }
  return blocks;
}

export interface ShellCommand {
  /** The words after the program name, quotes removed. */
  readonly argv: string[];
  /** Ended with `&`: left running while the next commands run. */
  readonly background: boolean;
  /** The command as the page writes it, for messages. */
  readonly text: string;
}

/**
 * The commands of a shell block that run `program` (`tokenmeter`): lines joined at a trailing backslash,
 * comments dropped, words split at spaces outside single or double quotes. Enough for the pages' examples, which
 * use no variables, pipes or substitutions.
 */
export function shellCommands(block: string, program: string): ShellCommand[] {
  const commands: ShellCommand[] = [];
  for (const line of block.replace(/\\\n\s*/g, ' ').split('\n')) {
    const words: string[] = [];
    let word: string | undefined;
    let quote: string | undefined;
    for (const char of line) {
      if (quote !== undefined) {
        if (char === quote) quote = undefined;
        else word += char;
      } else if (char === "'" || char === '"') {
        quote = char;
        word ??= '';
      } else if (char === '#' && word === undefined) break;
      else if (char === ' ') {
        if (word !== undefined) words.push(word);
        word = undefined;
      } else word = (word ?? '') + char;
    }
    if (word !== undefined) words.push(word);
    const text = words.join(' ');
    if (!text.startsWith(`${program} `)) continue;
    const background = words[words.length - 1] === '&';
    const argv = words.slice(program.split(' ').length, background ? -1 : undefined);
    commands.push({ argv, background, text });
  }
  return commands;
}
