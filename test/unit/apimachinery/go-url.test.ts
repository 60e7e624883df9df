import { describe, expect, it } from 'vitest';
import { type GoURL, type GoURLResult, parseGoRequestURI, parseGoURL } from '../../../apimachinery/go-url.js';

const url = (parts: Partial<GoURL>): GoURLResult => ({
  ok: true,
  url: { scheme: '', opaque: '', host: '', path: '', rawQuery: '', forceQuery: false, fragment: '', ...parts },
});
const fails = (error: string): GoURLResult => ({ ok: false, error });

describe("Go's url.Parse", () => {
  it.each<[string, GoURLResult]>([
    ['https://example.com/hook', url({ scheme: 'https', host: 'example.com', path: '/hook' })],
    ['HTTPS://example.com:8443', url({ scheme: 'https', host: 'example.com:8443' })],
    ['https://[::1]:443/x', url({ scheme: 'https', host: '[::1]:443', path: '/x' })],
    ['https://u@h/p?q=1#f', url({ scheme: 'https', host: 'h', user: 'u', path: '/p', rawQuery: 'q=1', fragment: 'f' })],
    ['https://h/p?', url({ scheme: 'https', host: 'h', path: '/p', forceQuery: true })],
    ['https:opaque', url({ scheme: 'https', opaque: 'opaque' })],
    ['mailto:x?y', url({ scheme: 'mailto', opaque: 'x', rawQuery: 'y' })],
    ['a:b/c', url({ scheme: 'a', opaque: 'b/c' })],
    ['//h/p', url({ host: 'h', path: '/p' })],
    ['///a', url({ path: '///a' })],
    ['*', url({ path: '*' })],
    ['', url({})],
    ['https://[fe80::1%25en0]:8443/', url({ scheme: 'https', host: '[fe80::1%25en0]:8443', path: '/' })],
    ['https://[fe80::1%25%41]/', url({ scheme: 'https', host: '[fe80::1%25%41]', path: '/' })],
    ['https://h/\x01#\x01', fails('parse "https://h/\\x01": net/url: invalid control character in URL')],
    ['https://h/#\x01', url({ scheme: 'https', host: 'h', path: '/', fragment: '\x01' })],
    ['://h', fails('parse "://h": missing protocol scheme')],
    ['https://h:port', fails('parse "https://h:port": invalid port ":port" after host')],
    ['https://[::1]x/', fails('parse "https://[::1]x/": invalid port "x" after host')],
    ['https://h o/', fails('parse "https://h o/": invalid character " " in host name')],
    ['https://h%41/', fails('parse "https://h%41/": invalid URL escape "%41"')],
    ['https://[fe80::1%25%80]/', fails('parse "https://[fe80::1%25%80]/": invalid URL escape "%80"')],
    ['https://a b@h/', fails('parse "https://a b@h/": net/url: invalid userinfo')],
    ['https://a%zz@h/', fails('parse "https://a%zz@h/": invalid URL escape "%zz"')],
    ['https://h/%zz', fails('parse "https://h/%zz": invalid URL escape "%zz"')],
    ['https://h/%4', fails('parse "https://h/%4": invalid URL escape "%4"')],
    ['https://h/#%x', fails('parse "https://h/#%x": invalid URL escape "%x"')],
    ['https://[::1/', fails('parse "https://[::1/": missing \']\' in host')],
    ['https://h/\n', fails('parse "https://h/\\n": net/url: invalid control character in URL')],
    ['1a:b/c', fails('parse "1a:b/c": first path segment in URL cannot contain colon')],
  ])('%j', (raw, want) => {
    expect(parseGoURL(raw)).toEqual(want);
  });
});

describe("Go's url.ParseRequestURI", () => {
  it.each<[string, GoURLResult]>([
    ['/a#b', url({ path: '/a#b' })],
    ['//h/p', url({ path: '//h/p' })],
    ['http://h/p?q', url({ scheme: 'http', host: 'h', path: '/p', rawQuery: 'q' })],
    ['urn:isbn:1', url({ scheme: 'urn', opaque: 'isbn:1' })],
    ['*', url({ path: '*' })],
    ['', fails('parse "": empty url')],
    ['a/b', fails('parse "a/b": invalid URI for request')],
    ['http://h/#%zz', fails('parse "http://h/#%zz": invalid URL escape "%zz"')],
  ])('%j', (raw, want) => {
    expect(parseGoRequestURI(raw)).toEqual(want);
  });
});
