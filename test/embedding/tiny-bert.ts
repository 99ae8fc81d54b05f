/**
 * Writes a tiny BERT-shaped model directory that transformers.js loads offline: one ONNX
 * `Gather` from an embedding table to `last_hidden_state`, a WordPiece tokenizer and the
 * config files. The protobuf is hand-encoded (varints and length-delimited fields), so
 * the test needs no ONNX tooling. Field numbers are those of onnx/onnx.proto.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Vocabulary of the tiny tokenizer; a token's id is its index. */
export const TINY_VOCAB = [
  '[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]',
  'read', 'the', 'file', 'contents', 'of', 'a', 'create', 'entity', '##s', 'graph',
];
/** Embedding width of the tiny model. */
export const TINY_DIM = 4;

/** Deterministic embedding table [TINY_VOCAB.length, TINY_DIM]: row r, column c = sin(r·5 + c + 1). */
export function tinyEmbeddingTable(): Float32Array {
  const table = new Float32Array(TINY_VOCAB.length * TINY_DIM);
  for (let i = 0; i < table.length; i++) table[i] = Math.sin(i + 1 + Math.floor(i / TINY_DIM));
  return table;
}

function varint(n: number | bigint): number[] {
  let v = BigInt(n);
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) byte |= 0x80;
    out.push(byte);
  } while (v > 0n);
  return out;
}

/** One protobuf field: a varint for numbers, length-delimited for strings and bytes. */
function field(num: number, value: number | string | Uint8Array | number[]): number[] {
  if (typeof value === 'number') return [...varint(num << 3), ...varint(value)];
  const bytes = typeof value === 'string' ? [...Buffer.from(value, 'utf8')] : [...value];
  return [...varint((num << 3) | 2), ...varint(bytes.length), ...bytes];
}

const INT64 = 7;
const FLOAT = 1;

function valueInfo(name: string, elemType: number, dims: Array<string | number>): number[] {
  const shape = dims.flatMap((d) => field(1, typeof d === 'string' ? field(2, d) : field(1, d)));
  const tensorType = [...field(1, elemType), ...field(2, shape)];
  return [...field(1, name), ...field(2, field(1, tensorType))];
}

/** The ONNX ModelProto bytes: IR 8, opset 13, Gather(embeddings, input_ids). */
export function tinyBertOnnx(table: Float32Array, vocab: readonly string[] = TINY_VOCAB): Uint8Array {
  const initializer = [
    ...field(1, vocab.length), ...field(1, TINY_DIM), ...field(2, FLOAT),
    ...field(8, 'embeddings'), ...field(9, new Uint8Array(table.buffer, table.byteOffset, table.byteLength)),
  ];
  const node = [
    ...field(1, 'embeddings'), ...field(1, 'input_ids'), ...field(2, 'last_hidden_state'),
    ...field(3, 'gather'), ...field(4, 'Gather'),
  ];
  const graph = [
    ...field(1, node), ...field(2, 'tiny-bert'), ...field(5, initializer),
    ...['input_ids', 'attention_mask', 'token_type_ids'].flatMap((n) =>
      field(11, valueInfo(n, INT64, ['batch', 'sequence']))),
    ...field(12, valueInfo('last_hidden_state', FLOAT, ['batch', 'sequence', TINY_DIM])),
  ];
  const opset = [...field(1, ''), ...field(2, 13)];
  return new Uint8Array([...field(1, 8), ...field(2, 'tool-curator-test'), ...field(7, graph), ...field(8, opset)]);
}

function tokenizerJson(vocab: readonly string[]): object {
  const special = (id: number, content: string) => ({
    id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true,
  });
  const ids = (token: string) => ({ id: token, ids: [vocab.indexOf(token)], tokens: [token] });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: vocab.slice(0, 5).map((t, i) => special(i, t)),
    normalizer: {
      type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } }],
      special_tokens: { '[CLS]': ids('[CLS]'), '[SEP]': ids('[SEP]') },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100,
      vocab: Object.fromEntries(vocab.map((t, i) => [t, i])),
    },
  };
}

/**
 * Writes `<root>/<name>/` with config.json, tokenizer.json, tokenizer_config.json,
 * onnx/model.onnx (read for dtype fp32) and onnx/model_quantized.onnx (read for q8;
 * it is not really quantized, only given its own table so a test can tell which was read).
 * `vocab` (first five: [PAD] [UNK] [CLS] [SEP] [MASK]) and the tables' rows go together:
 * row i is token i's embedding, TINY_DIM wide.
 */
export async function writeTinyBert(
  root: string, name: string, table = tinyEmbeddingTable(), quantizedTable = table, vocab: readonly string[] = TINY_VOCAB,
): Promise<void> {
  const dir = path.join(root, name);
  await mkdir(path.join(dir, 'onnx'), { recursive: true });
  await Promise.all([
    writeFile(path.join(dir, 'config.json'), JSON.stringify({ model_type: 'bert' })),
    writeFile(path.join(dir, 'tokenizer.json'), JSON.stringify(tokenizerJson(vocab))),
    writeFile(path.join(dir, 'tokenizer_config.json'),
      JSON.stringify({ tokenizer_class: 'BertTokenizer', pad_token: '[PAD]' })),
    writeFile(path.join(dir, 'onnx', 'model.onnx'), tinyBertOnnx(table, vocab)),
    writeFile(path.join(dir, 'onnx', 'model_quantized.onnx'), tinyBertOnnx(quantizedTable, vocab)),
  ]);
}
