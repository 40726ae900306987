/**
 * A small shop project for the LocAgent tests: the issue names `Cart.total` and `summary`; the fix goes in
 * `apply_discount`, one `invokes` step away from `Cart.total` (what the graph tools must let an agent find).
 */
import type { SweInstance } from '../../src/dataset/schema.ts';
import { MemorySnapshot } from '../support/memory-snapshot.ts';

export const SHOP_FILES: Record<string, string> = {
  'shop/__init__.py': '',
  'shop/cart.py': [
    'from shop.pricing import apply_discount',
    '',
    '',
    'class Cart:',
    '    def __init__(self, items, code=None):',
    '        self.items = items',
    '        self.code = code',
    '',
    '    def total(self):',
    '        amount = sum(price for _, price in self.items)',
    '        return apply_discount(amount, self.code)',
    '',
  ].join('\n'),
  'shop/pricing.py': [
    'from shop.discounts import DISCOUNTS',
    '',
    '',
    'def apply_discount(amount, code):',
    '    rate = DISCOUNTS.get(code, 0)',
    '    return amount - amount * rate',
    '',
  ].join('\n'),
  'shop/discounts.py': "DISCOUNTS = {'SAVE10': 0.1, 'FREE150': 1.5}\n",
  'shop/report.py': ['def summary(cart):', '    return f"total: {cart.total():.2f}"', ''].join('\n'),
  'tests/test_cart.py': ['from shop.cart import Cart', '', 'def test_total():', '    assert Cart([("a", 10)]).total() == 10', ''].join('\n'),
};

export const SHOP_ISSUE = [
  'Cart.total() goes negative with the FREE150 code',
  '',
  'summary(cart) prints "total: -5.00" for a cart worth 10 with code FREE150. A discount should never make the',
  'total negative.',
].join('\n');

export function shopSnapshot(): MemorySnapshot {
  return new MemorySnapshot('acme/shop', 'c0ffee', SHOP_FILES);
}

export function shopInstance(): SweInstance {
  return { instance_id: 'acme__shop-1', repo: 'acme/shop', base_commit: 'c0ffee', problem_statement: SHOP_ISSUE, patch: '' } as SweInstance;
}

export { toolCall } from './scripted-agent.ts';
