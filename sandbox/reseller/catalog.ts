/**
 * Sample goods of the reseller sandbox. Prices are wholesale roubles, close to what a real
 * reseller charges; identifiers are stable so tests and manual runs can refer to them.
 */

/** Wholesale price of one Telegram Star; stars and gifts are priced from it. */
export const STAR_UNIT_PRICE_RUB = 1.3;
/** Commission added to a Steam top-up amount. */
export const STEAM_FEE_PERCENT = 5;

export const LIMITS = {
  stars: { min: 50, max: 1_000_000 },
  steam: { min: 50, max: 50_000 },
  game: { min: 1, max: 10 },
} as const;

export const PREMIUM_PRICES_RUB: Record<string, { title: string; months: number; priceRub: number }> = {
  premium_3m: { title: "Telegram Premium 3 months", months: 3, priceRub: 1099 },
  premium_6m: { title: "Telegram Premium 6 months", months: 6, priceRub: 1499 },
  premium_12m: { title: "Telegram Premium 12 months", months: 12, priceRub: 2699 },
};

export interface SampleGift {
  gift_id: string;
  emoji: string;
  star_count: number;
  /** null = not limited, 0 = sold out. */
  remaining_count: number | null;
}

export const GIFTS: SampleGift[] = [
  { gift_id: "5170145012310081615", emoji: "💝", star_count: 15, remaining_count: null },
  { gift_id: "5170233102089322756", emoji: "🧸", star_count: 15, remaining_count: null },
  { gift_id: "5170250947678437525", emoji: "🎁", star_count: 25, remaining_count: null },
  { gift_id: "5168103777563050263", emoji: "🌹", star_count: 25, remaining_count: null },
  { gift_id: "5170144170496491616", emoji: "🎂", star_count: 50, remaining_count: null },
  { gift_id: "5170314324215857265", emoji: "💐", star_count: 50, remaining_count: null },
  { gift_id: "5170564780938756245", emoji: "🚀", star_count: 50, remaining_count: null },
  { gift_id: "5168043875654172773", emoji: "🏆", star_count: 100, remaining_count: null },
  { gift_id: "5170521118301225164", emoji: "💍", star_count: 100, remaining_count: null },
  { gift_id: "5170690322832818290", emoji: "💎", star_count: 100, remaining_count: null },
  { gift_id: "5782984811920491178", emoji: "🍾", star_count: 350, remaining_count: 1240 },
  { gift_id: "5782988952269164054", emoji: "🎄", star_count: 500, remaining_count: 37 },
  { gift_id: "5783075783622787539", emoji: "🧁", star_count: 250, remaining_count: 5 },
  { gift_id: "5782990091846356921", emoji: "🦄", star_count: 1000, remaining_count: 0 },
];

export interface SampleNeuralItem {
  code: string;
  title: string;
  emoji: string;
  delivery: "auto" | "manual";
  wholesale_price_rub: number;
}

/** Items with delivery "manual" exist but are left out of the catalog, as the spec says. */
export const NEURAL_ITEMS: SampleNeuralItem[] = [
  {
    code: "chatgpt_plus_1m",
    title: "ChatGPT Plus, 1 month",
    emoji: "🤖",
    delivery: "auto",
    wholesale_price_rub: 2190,
  },
  {
    code: "chatgpt_pro_1m",
    title: "ChatGPT Pro, 1 month",
    emoji: "🧠",
    delivery: "auto",
    wholesale_price_rub: 21900,
  },
  {
    code: "claude_pro_1m",
    title: "Claude Pro, 1 month",
    emoji: "✳️",
    delivery: "auto",
    wholesale_price_rub: 2150,
  },
  {
    code: "midjourney_basic_1m",
    title: "Midjourney Basic, 1 month",
    emoji: "🎨",
    delivery: "auto",
    wholesale_price_rub: 990,
  },
  {
    code: "midjourney_standard_1m",
    title: "Midjourney Standard, 1 month",
    emoji: "🖼️",
    delivery: "auto",
    wholesale_price_rub: 2890,
  },
  {
    code: "gemini_advanced_1m",
    title: "Gemini Advanced, 1 month",
    emoji: "♊",
    delivery: "auto",
    wholesale_price_rub: 1990,
  },
  {
    code: "perplexity_pro_1m",
    title: "Perplexity Pro, 1 month",
    emoji: "🔎",
    delivery: "auto",
    wholesale_price_rub: 1890,
  },
  {
    code: "suno_pro_1m",
    title: "Suno Pro, 1 month",
    emoji: "🎵",
    delivery: "manual",
    wholesale_price_rub: 950,
  },
];

export interface SamplePackage {
  product_ref: string;
  title: string;
  wholesale_price_rub: number;
}

export interface SampleRegion {
  code: string;
  title: string;
  delivery: "codes" | "topup";
  /** Keys `fields` must carry in create (empty for codes). */
  fields: string[];
  packages: SamplePackage[];
}

export interface SampleGame {
  key: string;
  title: string;
  regions: SampleRegion[];
}

const pkgs = (prefix: string, list: [string, string, number][]): SamplePackage[] =>
  list.map(([ref, title, price]) => ({ product_ref: `${prefix}-${ref}`, title, wholesale_price_rub: price }));

export const GAMES: SampleGame[] = [
  {
    key: "pubg",
    title: "PUBG Mobile",
    regions: [
      {
        code: "global",
        title: "Global",
        delivery: "topup",
        fields: ["player_id"],
        packages: pkgs("pubg-global", [
          ["60", "60 UC", 89],
          ["120", "120 UC", 175],
          ["180", "180 UC", 259],
          ["325", "325 UC", 439],
          ["385", "385 UC", 519],
          ["660", "660 UC", 869],
          ["985", "985 UC", 1299],
          ["1800", "1800 UC", 2190],
          ["3850", "3850 UC", 4390],
          ["8100", "8100 UC", 8790],
        ]),
      },
      {
        code: "ru",
        title: "Russia",
        delivery: "codes",
        fields: [],
        packages: pkgs("pubg-ru", [
          ["60", "60 UC code", 95],
          ["325", "325 UC code", 459],
          ["660", "660 UC code", 899],
        ]),
      },
    ],
  },
  {
    key: "genshin",
    title: "Genshin Impact",
    regions: [
      {
        code: "global",
        title: "Global",
        delivery: "topup",
        fields: ["uid", "server"],
        packages: pkgs("genshin-global", [
          ["60", "60 Genesis Crystals", 89],
          ["330", "300+30 Genesis Crystals", 429],
          ["1090", "980+110 Genesis Crystals", 1290],
          ["2240", "1980+260 Genesis Crystals", 2590],
          ["3880", "3280+600 Genesis Crystals", 4290],
          ["8080", "6480+1600 Genesis Crystals", 8490],
          ["welkin", "Blessing of the Welkin Moon", 429],
        ]),
      },
    ],
  },
  {
    key: "steam_cards",
    title: "Steam Gift Cards",
    regions: [
      {
        code: "us",
        title: "USA (USD)",
        delivery: "codes",
        fields: [],
        packages: pkgs("steam-us", [
          ["5", "$5 Steam Gift Card", 549],
          ["10", "$10 Steam Gift Card", 1079],
          ["20", "$20 Steam Gift Card", 2149],
          ["50", "$50 Steam Gift Card", 5349],
          ["100", "$100 Steam Gift Card", 10690],
        ]),
      },
      {
        code: "eu",
        title: "Europe (EUR)",
        delivery: "codes",
        fields: [],
        packages: pkgs("steam-eu", [
          ["5", "€5 Steam Gift Card", 599],
          ["10", "€10 Steam Gift Card", 1179],
          ["20", "€20 Steam Gift Card", 2339],
        ]),
      },
    ],
  },
  {
    key: "brawl_stars",
    title: "Brawl Stars",
    regions: [
      {
        code: "global",
        title: "Global",
        delivery: "topup",
        fields: ["player_tag"],
        packages: pkgs("brawl-global", [
          ["30", "30 Gems", 229],
          ["80", "80 Gems", 579],
          ["170", "170 Gems", 1149],
          ["pass", "Brawl Pass", 749],
        ]),
      },
    ],
  },
];

/** Wholesale price of a gift: its star count at the star unit price. */
export function giftPriceRub(gift: SampleGift): number {
  return round2(gift.star_count * STAR_UNIT_PRICE_RUB);
}

export function round2(n: number): number {
  return Math.round((n + Number.EPSILON) * 100) / 100;
}

/** Finds a package by reference together with its region (for `delivery` and `fields`). */
export function findPackage(
  productRef: string,
): { game: SampleGame; region: SampleRegion; pkg: SamplePackage } | undefined {
  for (const game of GAMES) {
    for (const region of game.regions) {
      const pkg = region.packages.find((p) => p.product_ref === productRef);
      if (pkg) return { game, region, pkg };
    }
  }
  return undefined;
}
