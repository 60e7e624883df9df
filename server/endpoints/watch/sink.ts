// Where a watch's events go: the sink a watch writes to, and its HTTP form, a chunked response of
// JSON lines or of kube's length-prefixed protobuf WatchEvent frames.
import type { ServerResponse } from 'node:http';
import { parseJSON } from '../../../apimachinery/json.js';
import { PROTOBUF_MEDIA_TYPE, type ReplyMediaType } from '../output.js';
import { canEncodeProtobuf, encodeProtobufWatchEvent } from '../../codecs/protobuf-encode.js';
import type { Serialized } from './events.js';

/** Where a watch's events go: a chunked HTTP response or a WebSocket. */
export interface WatchSink {
  /** Called once the start is known to be good, before the first event; `typeMeta` is the kind watched. */
  open(typeMeta?: { apiVersion: string; kind: string }): void;
  /** One event document, serialised (and shared with every other watcher sent it). */
  send(event: Serialized): void;
  /** Whether the client keeps up: false once the connection buffers enough, until it drains. */
  ready(): boolean;
  /** Called each time the client has taken what was buffered after `ready()` said false. */
  onDrain(listener: () => void): void;
  /** Bytes accepted but not yet taken by the client. */
  buffered(): number;
  /**
   * The server ends the watch normally. With `graceMs`, for a client cut off for falling behind,
   * the connection closes after the end, and is dropped if the client has not taken it by then.
   */
  end(graceMs?: number): void;
  onClose(listener: () => void): void;
}

/**
 * What each kind of sink writes of an event, made once and written to every watcher the event goes
 * to: a JSON line, the document's bytes (a WebSocket text message), a protobuf frame (null: none).
 */
const jsonLines = new WeakMap<Serialized, Buffer>();
const protobufFrames = new WeakMap<Serialized, Buffer | null>();

/** `{"type", "object"}` and a newline, as bytes. */
export function jsonLine(event: Serialized): Buffer {
  let line = jsonLines.get(event);
  if (!line) jsonLines.set(event, (line = Buffer.from(`${event.text}\n`)));
  return line;
}

/**
 * A JSON event document as a protobuf frame; an object without an encoding throws, except a
 * bookmark's (the kind's own, in a metadata-only watch of a custom resource), which is left out
 * (null): bookmarks are hints a client does without.
 */
function protobufFrame(serialized: Serialized): Buffer | null {
  let frame = protobufFrames.get(serialized);
  if (frame === undefined) {
    const event = parseJSON(serialized.text) as { type: string; object: unknown };
    frame =
      event.type === 'BOOKMARK' && !canEncodeProtobuf(event.object)
        ? null
        : encodeProtobufWatchEvent(event.type, event.object);
    protobufFrames.set(serialized, frame);
  }
  return frame;
}

/** A watch over HTTP, in the media type the request negotiated (JSON or protobuf: those that stream). */
export function httpWatchSink(res: ServerResponse, mediaType: ReplyMediaType): WatchSink {
  // The response lets go of its socket as soon as its end is buffered, well before it is sent.
  const socket = res.socket;
  const protobuf = mediaType === PROTOBUF_MEDIA_TYPE;
  return {
    open() {
      // kube names a stream's framing in its media type, except JSON's.
      const contentType = protobuf ? `${PROTOBUF_MEDIA_TYPE};stream=watch` : 'application/json';
      res.writeHead(200, {
        'Content-Type': contentType,
        'Transfer-Encoding': 'chunked',
        'Cache-Control': 'no-cache, private',
      });
      res.flushHeaders();
    },
    send(event) {
      if (!protobuf) return void res.write(jsonLine(event));
      try {
        const frame = protobufFrame(event);
        if (frame) res.write(frame);
      } catch {
        // No encoding for what the stream carries: nothing a protobuf client could read; it re-lists.
        res.destroy();
      }
    },
    ready: () => !res.writableNeedDrain,
    onDrain: (listener) => void res.on('drain', listener),
    buffered: () => res.writableLength,
    end(graceMs) {
      if (!res.destroyed) res.end();
      if (graceMs === undefined || !socket || socket.destroyed) return;
      socket.end();
      const drop = setTimeout(() => socket.destroy(), graceMs);
      drop.unref();
      socket.once('close', () => clearTimeout(drop));
    },
    onClose: (listener) => void res.once('close', listener),
  };
}
