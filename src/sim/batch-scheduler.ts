// The load model of a GPU serving engine, reduced to what shapes latency: at most `maxNumSeqs` sequences run at
// once, later arrivals wait in a FIFO queue (their time to first token grows), and every step slows as the batch
// grows. A rate sweep against the simulator therefore shows a knee, as one against a real GPU does.

export type SeatState = 'waiting' | 'running' | 'released';

export interface Seat {
  state: SeatState;
  readonly start: () => void;
}

export class BatchScheduler {
  private runningCount = 0;
  private readonly queue: Seat[] = [];

  constructor(
    private readonly maxNumSeqs: number,
    private readonly batchSlowdown: number,
    private readonly onChange: (running: number, waiting: number) => void = () => {},
  ) {}

  get running(): number {
    return this.runningCount;
  }

  get waiting(): number {
    return this.queue.length;
  }

  /** Factor applied to every step's duration with the current batch: 1 for a lone sequence. */
  slowdown(): number {
    return 1 + this.batchSlowdown * Math.max(0, this.runningCount - 1);
  }

  /** Starts the sequence at once when a seat is free, otherwise queues it. */
  admit(start: () => void): Seat {
    const seat: Seat = { state: 'waiting', start };
    if (this.runningCount < this.maxNumSeqs) {
      this.run(seat);
    } else {
      this.queue.push(seat);
      this.onChange(this.runningCount, this.queue.length);
    }
    return seat;
  }

  /** Frees the seat (finished, failed or cancelled) and starts the next waiting sequence. */
  release(seat: Seat): void {
    if (seat.state === 'released') return;
    const wasRunning = seat.state === 'running';
    seat.state = 'released';
    if (!wasRunning) {
      const index = this.queue.indexOf(seat);
      if (index >= 0) this.queue.splice(index, 1);
      this.onChange(this.runningCount, this.queue.length);
      return;
    }
    this.runningCount--;
    const next = this.queue.shift();
    if (next) {
      this.run(next);
    } else {
      this.onChange(this.runningCount, this.queue.length);
    }
  }

  private run(seat: Seat): void {
    seat.state = 'running';
    this.runningCount++;
    this.onChange(this.runningCount, this.queue.length);
    seat.start();
  }
}
