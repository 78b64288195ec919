// `top`'s full-screen mode: the alternate screen (so the user's scrollback is untouched), a hidden cursor, and
// keys read one at a time. Raw mode turns Ctrl-C into a key instead of SIGINT, so the key handler sees it; the
// terminal is put back however the process ends (a key, a signal, an exception), as `less` and `htop` do.

const ENTER_ALTERNATE_SCREEN = '\u001b[?1049h';
const LEAVE_ALTERNATE_SCREEN = '\u001b[?1049l';
const HIDE_CURSOR = '\u001b[?25l';
const SHOW_CURSOR = '\u001b[?25h';
const CURSOR_HOME = '\u001b[H';
const CLEAR_TO_LINE_END = '\u001b[K';
const CLEAR_BELOW = '\u001b[J';

export class TerminalScreen {
  readonly #output: NodeJS.WriteStream;
  readonly #input: NodeJS.ReadStream;
  #entered = false;
  readonly #restoreOnExit = () => this.restore();

  constructor(output: NodeJS.WriteStream, input: NodeJS.ReadStream) {
    this.#output = output;
    this.#input = input;
  }

  /** Takes over the terminal; `onKey` gets each key press as the text it sends (Ctrl-C is '\u0003'). */
  enter(onKey: (key: string) => void): void {
    this.#entered = true;
    process.once('exit', this.#restoreOnExit);
    this.#output.write(ENTER_ALTERNATE_SCREEN + HIDE_CURSOR);
    if (this.#input.isTTY) this.#input.setRawMode(true);
    this.#input.setEncoding('utf8');
    this.#input.on('data', onKey);
    this.#input.resume();
  }

  /** Replaces the screen's content, each line cut to the terminal's width so none wraps. */
  draw(lines: readonly string[]): void {
    const width = this.#output.columns > 0 ? this.#output.columns : 120;
    const rows = this.#output.rows > 0 ? this.#output.rows : lines.length;
    const shown = lines.slice(0, rows).map((line) => line.slice(0, width) + CLEAR_TO_LINE_END);
    this.#output.write(CURSOR_HOME + shown.join('\r\n') + CLEAR_BELOW);
  }

  /** Gives the terminal back as it was; safe to call more than once. */
  restore(): void {
    if (!this.#entered) return;
    this.#entered = false;
    process.off('exit', this.#restoreOnExit);
    this.#input.removeAllListeners('data');
    if (this.#input.isTTY) this.#input.setRawMode(false);
    this.#input.pause();
    this.#output.write(SHOW_CURSOR + LEAVE_ALTERNATE_SCREEN);
  }
}
