import picocolors from 'picocolors';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { cut, ellipsize, padToWidth, wrap } from '../core/output.js';
import { renderToolTable, type ToolListing } from './tool-listing.js';

const plain = picocolors.createColors(false);

describe('text width: columns on the screen, not UTF-16 units', () => {
  it('ellipsize fits CJK text in the columns it is given', () => {
    const cities = '北京上海广州深圳'.repeat(5);
    const cut20 = ellipsize(cities, 20);
    expect(stringWidth(cut20)).toBeLessThanOrEqual(20);
    expect(cut20.endsWith('…')).toBe(true);
    expect(ellipsize('北京', 4)).toBe('北京');
  });

  it('ellipsize never splits an emoji (a surrogate pair or a ZWJ sequence)', () => {
    const family = '👨‍👩‍👧';
    for (const text of ['🌤'.repeat(30), family.repeat(10), `a${'😀'.repeat(20)}`]) {
      for (let width = 2; width < 12; width++) {
        const result = ellipsize(text, width);
        // A lone surrogate (half an emoji) does not survive a round trip through UTF-8.
        expect(Buffer.from(result, 'utf8').toString('utf8')).toBe(result);
        expect(stringWidth(result)).toBeLessThanOrEqual(width);
        expect(result.replace('…', '').replaceAll(family, '')).not.toMatch(/[\u200d]/);
      }
    }
  });

  it('wrap breaks CJK and emoji text at the screen width', () => {
    const text = '天气 晴朗 北京 二十二度 伦敦 小雨 十四度 平均 十八度 🌤 ☔ 完成 '.repeat(4).trim();
    const lines = wrap(text, 20, '  ').split('\n');
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(20);
  });

  it('cut counts columns too', () => {
    const result = cut('雨'.repeat(100), 40);
    expect(stringWidth(result)).toBeLessThanOrEqual(40);
    expect(result).toContain('chars)');
  });

  it('padToWidth pads to columns', () => {
    expect(stringWidth(padToWidth('北京', 8))).toBe(8);
    expect(stringWidth(padToWidth('🌤 x', 8))).toBe(8);
    expect(padToWidth('long name', 4)).toBe('long name');
  });

  it('the tools table keeps its columns aligned under a wide tool name', () => {
    const tool = (name: string): ToolListing => ({
      name,
      source: 'mcp:天气',
      permissions: ['read'],
      permissionsFrom: 'annotations',
      allowed: true,
      parameters: '城市: string',
      description: '',
      schema: {},
    });
    const table = renderToolTable([tool('weather'), tool('天气__查询'), tool('🌤_now')], plain, 80);
    const rows = table.split('\n').filter((line) => line.includes('allowed'));
    expect(rows).toHaveLength(3);
    const column = (line: string): number => stringWidth(line.slice(0, line.indexOf('allowed')));
    expect(new Set(rows.map(column)).size).toBe(1);
  });
});
