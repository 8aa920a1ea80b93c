"""English word lists and patterns for an English room's brain (data only: the brain compiles and reads them).

Provenance and licence of every list below: written by hand for this project (virtual-anchor) from general
knowledge of English live chat, shopping-stream questions and what Chinese platforms' rules forbid; copied from
no word list, corpus or other project. They are part of this project and under its licence. Each list says what
it is for and how its entries are written; all entries are lower case unless a pattern says otherwise.

Conventions the brain relies on:
- a word entry is matched as a whole word (or whole phrase) in the comment lower-cased, with runs of spaces
  squeezed; a `*_PATTERNS` entry is a Python `re` pattern matched with re.IGNORECASE against the comment as
  typed (NFKC-normalized first);
- evasions are read by folding the comment with LEET (each character on the right stands for the letter on the
  left) and by letting SEPARATOR stand between the letters of a word; EVASION_STEMS are the words worth that
  cost (short enough to be spelled out, common enough to be disguised);
- ALLOWED_INSIDE names innocent words that contain a listed word (the Scunthorpe problem) and must not match.
"""

from __future__ import annotations

# -- profanity and insults ------------------------------------------------------------------------------------

PROFANITY: tuple[str, ...] = (
    "fuck", "fucks", "fucked", "fucker", "fuckers", "fucking", "fuckin", "motherfucker", "motherfucking", "fck",
    "fuk", "fuq", "wtf", "stfu", "gtfo", "shit", "shits", "shitty", "bullshit", "horseshit", "shithead", "bitch",
    "bitches", "bitchy", "son of a bitch", "cunt", "cunts", "dick", "dickhead", "cock", "cocksucker", "pussy",
    "asshole", "assholes", "arsehole", "ass", "dumbass", "jackass", "bastard", "bastards", "wanker", "twat",
    "prick", "bollocks", "bugger", "slut", "sluts", "whore", "whores", "hoe", "skank", "douche", "douchebag",
    "tits", "titties", "boobs", "cum", "jizz", "dildo", "blowjob", "handjob", "piss off", "pissed off",
    "goddamn", "damn you", "screw you",
)
"""Profanity: swearing and vulgar words, as written plainly. Written by hand for this project."""

SLURS: tuple[str, ...] = (
    "nigger", "niggers", "nigga", "niggas", "faggot", "faggots", "fag", "fags", "retard", "retards", "retarded",
    "spic", "spics", "chink", "chinks", "gook", "gooks", "kike", "kikes", "wetback", "tranny", "trannies",
    "dyke", "coon", "coons", "raghead", "towelhead", "paki", "chingchong", "ching chong", "jap", "japs",
    "beaner", "beaners", "cracker", "redskin", "gypsy scum",
)
"""Slurs against a race, nationality, religion, sexuality or disability: always blocked, never read out (a viewer's
name holding one is read as a generic name). Written by hand for this project."""

INSULTS: tuple[str, ...] = (
    "idiot", "idiots", "stupid", "moron", "morons", "imbecile", "dumb", "dumbo", "loser", "losers", "pathetic",
    "ugly", "fat pig", "pig", "trash", "garbage", "clown", "cringe", "you suck", "this sucks", "shut up",
    "nobody cares", "no one asked", "get lost", "go away", "go to hell", "kys", "kill yourself", "go die",
    "drop dead", "hope you die", "worthless", "useless", "scammer", "scam artist", "fraud", "liar", "creep",
    "weirdo", "freak", "simp", "incel", "bot", "fake anchor", "robot voice", "braindead", "brain dead",
)
"""Insults and harassment aimed at the host, the shop or other viewers. 'bot', 'fraud', 'scammer' are insults
here only when aimed at someone (the brain's frames decide: 'you are a bot', 'this shop is a fraud'). Written
by hand for this project."""

THREATS: tuple[str, ...] = (
    "i will find you", "i know where you live", "watch your back", "you're dead", "youre dead", "i'll kill",
    "ill kill", "i will kill", "going to kill", "gonna kill", "shoot you", "stab you", "bomb", "swat you",
    "dox you", "doxx you", "leak your address",
)
"""Threats of violence or exposure: blocked and worth an operator's look. Written by hand for this project."""

LEET: dict[str, str] = {
    "a": "a@4^", "b": "b8", "c": "c(<k", "e": "e3€", "g": "g96", "h": "h#", "i": "i1!|l", "k": "kq",
    "l": "l1|", "o": "o0", "s": "s$5z", "t": "t7+", "u": "uv*", "x": "x%", "z": "z2",
}
"""Leetspeak and look-alike characters: each character on the right may stand for the letter on the left
(f*ck, sh1t, b!tch, @ss). Written by hand for this project."""

SEPARATOR = r"[\s._*\-~|/\\,'`+]{0,3}"
"""What may stand between the letters of a disguised word (f.u.c.k, s h i t, b-i-t-c-h), as a regex fragment:
at most three such characters between two letters. Written by hand for this project."""

EVASION_STEMS: tuple[str, ...] = (
    "fuck", "shit", "bitch", "cunt", "dick", "cock", "pussy", "asshole", "bastard", "whore", "slut", "nigger",
    "nigga", "faggot", "retard", "chink", "kike", "spic", "kys", "kill yourself", "onlyfans", "telegram",
    "whatsapp", "discord", "instagram", "snapchat", "wechat", "casino", "cocaine", "meth", "nudes",
)
"""Words whose disguised spellings are read (with LEET and SEPARATOR): the worst insults and the contact and
solicitation words people spell out to slip past a plain list. Written by hand for this project."""

PROFANITY_PATTERNS: tuple[str, ...] = (
    r"\bf+[\W_]*[u*@v]+[\W_]*[c(k]+[\W_]*k*(?:ing|in|er|ed|s)?\b",  # f*ck, fuuuck, f u c k, phuck below
    r"\bph+u+c*k+",
    r"\bs+[\W_]*h+[\W_]*[i1!*]+[\W_]*t+(?:ty|s)?\b",
    r"\bb+[\W_]*[i1!*]+[\W_]*t+[\W_]*c+[\W_]*h+(?:es|y)?\b",
    r"\bc+[\W_]*[u*]+[\W_]*n+[\W_]*t+s?\b",
    r"\ba+[\W_]*[s$5]+[\W_]*[s$5]+[\W_]*h+[\W_]*[o0]+[\W_]*l+[\W_]*e+",
    r"\bn+[\W_]*[i1!*]+[\W_]*g+[\W_]*g+[\W_]*(?:[e3]+[\W_]*r+|a+|u+h+)s?\b",
    r"\bf+[\W_]*[a@4]+[\W_]*g+[\W_]*g+[\W_]*[o0]+[\W_]*t+",
    r"\bk+[\W_]*y+[\W_]*s+\b",
    r"\bkill\s*(?:ur|your)\s*self\b",
    r"\bsuck\s+(?:my|a)\s+\w+",
)
"""Profanity written to dodge a list: repeated letters, symbols and spaces inside the word (f*ck, fuuuck,
s.h.i.t, b!tch, n1gg3r, k y s). Written by hand for this project."""

ALLOWED_INSIDE: tuple[str, ...] = (
    "scunthorpe", "cockpit", "cocktail", "cockatoo", "peacock", "hancock", "shuttlecock", "dickens", "dickinson",
    "assess", "assessment", "assassin", "assistant", "assist", "assume", "bass", "class", "classic", "glass",
    "grass", "mass", "pass", "passion", "embarrass", "compass", "harass", "cassette", "hello", "shell", "shiitake",
    "shift", "shirt", "therapist", "analysis", "analytics", "document", "cucumber", "skyscraper", "button",
    "mitten", "pussycat", "pussy willow", "snigger", "niger", "nigeria", "spicy", "spice", "japan", "japanese",
    "crackers", "firecracker", "hoedown", "shoe", "bombay", "bombshell", "title", "titanium", "kyso", "skyscraper",
)
"""Innocent words that contain a listed word or match a loose pattern (the Scunthorpe problem): a match inside one
of these is no match. Written by hand for this project."""

# -- contact details and traffic diversion ------------------------------------------------------------------------

CONTACT_PATTERNS: tuple[str, ...] = (
    r"[\w.+-]+\s*(?:@|\(at\)|\[at\]|\s+at\s+)\s*[\w-]+\s*(?:\.|\(dot\)|\[dot\]|\s+dot\s+)\s*(?:com|net|org|io|co|me|cn|us|uk)\b",
    r"\b(?:gmail|hotmail|outlook|yahoo|icloud|protonmail|proton|qq|163)\s*(?:\.|dot)?\s*com\b",
    r"(?<!\d)(?:\+?1[\s.-]?)?\(?\d{3}\)?[\s.-]?\d{3}[\s.-]?\d{4}(?!\d)",  # US/Canada: (555) 123-4567
    r"(?<!\d)\+\d{1,3}[\s.-]?\(?\d{1,4}\)?(?:[\s.-]?\d{2,4}){2,4}(?!\d)",  # international: +44 20 7946 0958
    r"(?<!\d)(?:\+?86[\s-]?)?1[3-9]\d[\s-]?\d{4}[\s-]?\d{4}(?!\d)",  # Chinese mobile numbers
    r"\b(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)(?:[\s,.-]+(?:zero|oh|one|two|three|four|five|six|"
    r"seven|eight|nine)){6,}\b",  # a number spelled out digit by digit
    r"\b(?:dm|pm|inbox|message|msg|text|whisper|hmu)\s+me\b",  # not "hit me" ("hit me with the price")
    r"\bhit\s+me\s+up\b",
    r"\b(?:add|find|contact|reach|follow)\s+me\s+(?:on|at|in|via)\b",
    r"\b(?:my|our)\s+(?:telegram|whatsapp|discord|insta|instagram|ig|snap|snapchat|kik|wechat|line|signal|"
    r"tiktok|twitter|x|facebook|fb)\b",
    r"\b(?:telegram|tg|whatsapp|wa|discord|insta|instagram|ig|snap|snapchat|kik|wechat|weixin|vx|wx|line\s*id|"
    r"signal|skype)\s*[:=@]\s*\S+",
    r"\bt\.me/\S+", r"\bwa\.me/\S+", r"\bdiscord(?:\.gg|app\.com/invite|\.com/invite)/\S+",
    r"\b(?:instagram|snapchat|tiktok|twitter|x|facebook|fb)\.com/\S+",
    r"(?<![\w@])@[a-z0-9_.]{3,30}\b(?=.*\b(?:ig|insta|instagram|tiktok|twitter|snap|telegram|follow|dm)\b)",
    r"(?:https?://|www\.)\S+",
    r"\b[a-z0-9-]{2,}\s*(?:\.|\(dot\)|\[dot\]|\s+dot\s+)\s*(?:com|net|org|io|gg|tv|me|shop|store|xyz|top|cc|co|ly|link)\b",
    r"\blink\s+in\s+(?:my\s+)?(?:bio|profile|description)\b",
    r"\b(?:check|visit|see)\s+(?:out\s+)?my\s+(?:profile|page|bio|channel|stream|store|shop|website|site)\b",
)
"""Contact details and invitations to talk elsewhere: emails (also written 'name at gmail dot com'), phone
numbers in US, international and Chinese formats or spelled out digit by digit, 'dm me', handles on Telegram,
WhatsApp, Discord, Instagram, Snapchat, WeChat and friends, invite links and URLs, 'link in bio'. Written by
hand for this project."""

TRAFFIC_DIVERSION: tuple[str, ...] = (
    "follow my stream", "follow my channel", "check out my stream", "check out my channel", "come to my stream",
    "watch my stream", "sub to my channel", "subscribe to my channel", "sub 4 sub", "sub4sub", "follow for follow",
    "f4f", "follow back", "follow4follow", "l4l", "like for like", "raid me", "host me", "promote my",
    "buy followers", "cheap followers", "free followers", "get followers", "buy viewers", "free viewers",
    "viewbot", "view bot", "viewbots", "buy subs", "buy likes", "grow your channel", "grow your stream",
    "boost your stream", "promote your stream", "streamboost", "want to become famous", "wanna become famous",
    "best viewers", "cheap viewers", "real followers", "primes and viewers",
)
"""Traffic diversion and follower selling: advertising one's own channel, follow-for-follow, and the sellers of
followers, viewers and view bots that plague small streams. Written by hand for this project."""

COMPETITOR_DIVERSION: tuple[str, ...] = (
    "cheaper on amazon", "cheaper on aliexpress", "cheaper on temu", "cheaper on shein", "cheaper on ebay",
    "cheaper on taobao", "cheaper on walmart", "cheaper at walmart", "cheaper at costco", "cheaper elsewhere",
    "cheaper somewhere else", "buy it on amazon", "buy it on aliexpress", "buy it on temu", "buy it on ebay",
    "get it on amazon", "get it on temu", "get it on aliexpress", "same thing on amazon", "same thing on temu",
    "same thing on aliexpress", "order from amazon instead", "buy from my store", "buy from my shop",
    "my store has it", "my shop sells", "i sell it cheaper", "i sell the same", "don't buy here", "dont buy here",
    "don't buy from", "dont buy from", "go to another stream", "go watch another stream", "other stream is better",
    "other store sells", "buy it elsewhere", "wholesale price dm",
)
"""Sending viewers to another store, marketplace or stream to buy (a viewer's own habit, 'I bought one on Amazon
last year', is no diversion: the brain's frames tell them apart). Written by hand for this project."""

# -- scams, gambling, drugs, sex ----------------------------------------------------------------------------------

SCAM: tuple[str, ...] = (
    "free giveaway", "giveaway winner", "you won", "you have won", "claim your prize", "claim your reward",
    "click the link", "click my link", "click here", "send me money", "send me $", "send me crypto",
    "double your money", "double your bitcoin", "double your crypto", "investment opportunity", "invest with me",
    "guaranteed profit", "guaranteed returns", "passive income", "get rich quick", "make money fast",
    "earn $", "earn money from home", "work from home and earn", "forex signals", "trading signals",
    "crypto signals", "pump and dump", "airdrop", "free nitro", "free robux", "free vbucks", "free v-bucks",
    "free gift card", "gift card code", "steam gift card", "cash app me", "cashapp me", "venmo me", "paypal me",
    "zelle me", "sugar daddy", "sugar mommy", "verify your account", "your account will be banned",
    "recover your account", "seed phrase", "wallet address", "usdt", "bitcoin", "btc", "ethereum", "eth wallet",
    "nft mint", "mint now", "dm for investment", "loan offer", "instant loan",
)
"""Scams and money solicitation: fake giveaways, 'double your crypto', account-recovery phishing, gift-card and
payment-app requests. Written by hand for this project."""

GAMBLING: tuple[str, ...] = (
    "casino", "online casino", "betting", "bet now", "place your bets", "sports betting", "sportsbook",
    "bookie", "slots", "slot machine", "free spins", "jackpot", "roulette", "blackjack", "baccarat", "poker site",
    "stake.com", "stake code", "bet365", "1xbet", "betway", "draftkings", "fanduel", "roobet", "rollbit",
    "csgo skins gamble", "case opening site", "promo code for casino", "deposit bonus", "odds boost",
    "lottery tickets online",
)
"""Gambling and betting promotion (casinos, sportsbooks, crypto casinos, skin gambling), banned on Chinese
platforms and restricted on Twitch. Written by hand for this project."""

DRUGS: tuple[str, ...] = (
    "weed", "marijuana", "cannabis", "thc", "thc carts", "dab pen", "edibles", "cocaine", "coke plug", "crack",
    "meth", "crystal meth", "heroin", "fentanyl", "fent", "oxy", "oxycodone", "oxycontin", "percs", "percocet",
    "xanax", "xans", "adderall", "molly", "mdma", "ecstasy", "lsd", "acid tabs", "shrooms", "magic mushrooms",
    "ketamine", "ket", "dmt", "lean", "codeine", "plug for", "buy pills", "pills for sale", "no prescription",
    "without prescription", "420 friendly",
)
"""Drugs and their sale (street names included; 'coke' alone is a soft drink, so only 'coke plug'). Written by
hand for this project."""

SEX_SOLICITATION: tuple[str, ...] = (
    "nudes", "send nudes", "send pics", "send me pics", "nude pics", "dick pic", "onlyfans", "only fans",
    "my of", "of link", "fansly", "sexting", "sext", "hookup", "hook up tonight", "escort", "escorts",
    "cam girl", "camgirl", "cam show", "18+ content", "adult content", "xxx", "porn", "p0rn", "sex chat",
    "horny", "sugar baby", "looking for a good time", "meet me tonight", "lonely tonight", "private show",
    "spicy content", "link for nudes",
)
"""Sexual solicitation and adult-content advertising. Written by hand for this project."""

POLITICAL: tuple[str, ...] = (
    "tiananmen", "tiananmen square", "june 4th", "june fourth", "4th of june 1989", "1989 massacre", "tank man",
    "ccp", "chinese communist party", "communist party of china", "xi jinping", "xijinping", "winnie the pooh",
    "winnie pooh", "pooh bear xi", "emperor xi", "xitler", "dictator xi", "mao zedong", "chairman mao",
    "cultural revolution", "great leap forward", "falun gong", "falungong", "free tibet", "tibet independence",
    "dalai lama", "east turkestan", "uyghur", "uighur", "uyghur genocide", "xinjiang camps", "concentration camps",
    "free hong kong", "hong kong independence", "liberate hong kong", "revolution of our times", "taiwan independence",
    "taiwan is a country", "taiwan is not china", "republic of china", "one china", "great firewall", "vpn to china",
    "ccp virus", "china virus", "wuhan virus", "chinazi", "chyna", "down with the ccp", "overthrow the ccp",
    "ccp propaganda", "ccp bot", "50 cent army", "wumao", "social credit score", "liu xiaobo", "ai weiwei",
    "tibet", "xinjiang", "hong kong protests", "june 4", "6/4", "8964",
)
"""Political provocation that a Chinese platform's rules forbid in any language: the 1989 events, mocking or
attacking state leaders, separatism, banned movements, slurs about China. A seller's room neither discusses nor
repeats these; the brain stays silent and the comment is logged. Place names alone ('tibet', 'xinjiang') are here
for rooms on Chinese platforms, whose reviewers treat them as sensitive in chat; a room that sells tea from
Yunnan may drop them. Written by hand for this project."""

# -- questions and what they ask ---------------------------------------------------------------------------------

QUESTION_STARTS: tuple[str, ...] = (
    "how much", "how many", "how long", "how big", "how tall", "how heavy", "how often", "how soon", "how fast",
    "how do", "how does", "how can", "how to", "how is", "how are", "what", "what's", "whats", "when", "when's",
    "where", "where's", "which", "who", "whose", "why", "is it", "is this", "is that", "is there", "are they",
    "are these", "are there", "are you", "does it", "does this", "does that", "do they", "do you", "do these",
    "did", "can i", "can you", "can it", "can we", "could i", "could you", "will it", "will you", "will there",
    "would it", "would you", "should i", "shall", "have you", "has it", "any chance", "anyone know", "anybody know",
    "any discount", "any coupon", "any code", "got any", "u got", "do u", "does u", "r u", "is der", "wat", "wut",
    "hw much", "how mch", "price?", "pls tell", "please tell", "tell me", "i want to know", "i wanna know",
    "wondering if", "i wonder", "curious if", "quick question", "question:", "q:",
)
"""How English viewers begin a question, including chat spellings (u, r u, wat, hw much). A comment starting with
one of these (as whole words), or ending in '?', asks something. Written by hand for this project."""

QUESTION_ENDS: tuple[str, ...] = ("?", "right", "or not", "yes or no", "correct", "pls", "please", "anyone")
"""Tails that turn a statement into a question ('it ships to canada right', 'comes in blue or not'). Written by
hand for this project."""

SLOT_WORDS: dict[str, tuple[str, ...]] = {
    "price": ("price", "prices", "cost", "costs", "how much", "how much is", "pricing", "expensive", "cheap",
              "cheaper", "discount", "discounts", "deal", "deals", "sale", "on sale", "coupon", "coupons",
              "promo", "promo code", "code", "voucher", "offer", "bundle", "per unit", "each", "total", "usd", "eur",
              "dollars", "bucks", "euros", "pounds", "quid", "rmb", "yuan", "tax", "vat", "afford"),
    "shipping": ("ship", "ships", "shipping", "shipped", "deliver", "delivery", "delivered", "arrive", "arrives",
                 "arrival", "eta", "tracking", "track my order", "dispatch", "post", "postage", "courier",
                 "international", "worldwide", "free shipping", "ship to", "ship from", "customs", "how long to get",
                 "when will i get", "express", "overnight", "dhl", "fedex", "ups", "usps"),
    "size": ("size", "sizes", "sizing", "fit", "fits", "fitting", "true to size", "runs small", "runs large",
             "small", "medium", "large", "xl", "xxl", "xs", "dimension", "dimensions", "how big", "how small",
             "length", "width", "height", "depth", "tall", "wide", "long", "inch", "inches", "cm", "mm",
             "measurements", "size chart", "which size", "what size"),
    "returns": ("return", "returns", "returning", "refund", "refunds", "exchange", "exchanges", "money back",
                "send it back", "send back", "return policy", "cancel", "cancel my order", "cancellation",
                "if i don't like", "if it doesn't fit", "restocking fee", "30 days", "7 days"),
    "warranty": ("warranty", "warranties", "guarantee", "guaranteed", "repair", "repairs", "broken", "breaks",
                 "defect", "defective", "damaged", "replacement", "replace", "after sales", "customer service",
                 "support", "how long does it last", "durable", "durability", "lifespan"),
    "materials": ("material", "materials", "made of", "made from", "what is it made", "fabric", "cotton",
                  "polyester", "wool", "silk", "linen", "leather", "vegan leather", "plastic", "bpa", "bpa free",
                  "steel", "stainless", "stainless steel", "aluminum", "aluminium", "glass", "ceramic", "wood",
                  "bamboo", "silicone", "rubber", "metal", "ingredients", "contains", "allergy", "allergen",
                  "toxic", "non toxic", "safe for kids", "food grade", "organic", "natural"),
    "how_to_use": ("how to use", "how do i use", "how do you use", "how does it work", "how it works",
                   "instructions", "manual", "setup", "set up", "install", "installation", "assemble",
                   "assembly", "wash", "washing", "machine wash", "dishwasher", "dishwasher safe", "clean",
                   "cleaning", "charge", "charging", "battery life", "operate", "turn on", "pair", "pairing",
                   "microwave", "microwave safe", "care", "store it", "storage"),
    "stock": ("in stock", "stock", "sold out", "out of stock", "available", "availability", "restock",
              "restocking", "back in stock", "how many left", "left", "any left", "limited", "preorder",
              "pre-order", "last one"),
    "color": ("color", "colors", "colour", "colours", "what colors", "other colors", "black", "white", "red",
              "blue", "green", "pink", "purple", "yellow", "grey", "gray", "beige", "navy", "brown", "silver",
              "gold", "rose gold", "clear", "transparent"),
    "capacity": ("capacity", "volume", "how much does it hold", "hold", "holds", "ml", "milliliters", "liter",
                 "liters", "litre", "litres", "oz", "ounces", "fl oz", "cups", "gallon", "storage space",
                 "gb", "tb"),
    "compatibility": ("compatible", "compatibility", "works with", "work with", "fit my", "fits my", "for iphone",
                      "for android", "for samsung", "for mac", "for windows", "usb-c", "usb c", "lightning",
                      "bluetooth", "wifi", "voltage", "110v", "220v", "plug", "adapter", "universal"),
    "origin": ("where is it made", "made in", "where from", "origin", "brand", "manufacturer", "authentic",
               "genuine", "original", "real or fake", "fake", "counterfeit", "official"),
}
"""What a question asks about, by slot: price, shipping, size, returns, warranty, materials, how to use, stock,
colour, capacity, compatibility and origin. An entry is a word or phrase of the comment; a slot's words also
reach into the facts (a fact about 'refunds' answers a 'returns' question). Written by hand for this project."""

AMOUNT_PATTERNS: tuple[str, ...] = (
    r"(?:us\$|ca\$|c\$|a\$|au\$|hk\$|nt\$|s\$|r\$|\$|€|£|¥|￥|₩|₹)\s?\d+(?:[.,]\d{3})*(?:[.,]\d{1,2})?(?:\s?[kKmM])?",
    r"\d+(?:[.,]\d{3})*(?:[.,]\d{1,2})?\s?(?:usd|eur|gbp|cad|aud|hkd|cny|rmb|jpy|krw|dollars?|bucks|euros?|pounds?|"
    r"quid|yuan|yen)\b",
    r"\d+(?:\.\d{1,2})?\s?¢",
)
"""Money amounts in English chat ($5, $5.99, €10, 10 euros, 30 bucks, 99¢): a question that names one asks
about the price, and an answer's amount must be in the facts. Written by hand for this project."""

# -- friendly chat ----------------------------------------------------------------------------------------------

GREETINGS: tuple[str, ...] = (
    "hi", "hii", "hiii", "hello", "hellooo", "hey", "heyy", "heyyy", "hey there", "hiya", "howdy", "yo", "sup",
    "wassup", "what's up", "whats up", "wsg", "good morning", "good afternoon", "good evening", "gm", "morning",
    "evening", "greetings", "hi everyone", "hi chat", "hello chat", "hey chat", "i'm back", "im back", "back again",
    "just got here", "first time here", "new here", "first time watching", "hi from", "hello from", "greetings from",
    "watching from", "o7", "hai",
)
"""Greetings and arrivals ('hi from Texas', 'first time here'): friendly chit-chat the host acknowledges. Written by
hand for this project."""

PRAISE: tuple[str, ...] = (
    "love it", "love this", "loving it", "i love", "so cute", "cute", "adorable", "beautiful", "gorgeous",
    "pretty", "nice", "very nice", "so nice", "cool", "so cool", "awesome", "amazing", "incredible", "great",
    "great stream", "great job", "good job", "well done", "nice stream", "love the stream", "love your stream",
    "love your voice", "you're great", "youre great", "you're awesome", "looks good", "looks great", "looks amazing",
    "looks nice", "that's nice", "thats nice", "so good", "so pretty", "wow", "woah", "whoa", "neat", "sick",
    "fire", "lit", "dope", "banger", "goated", "w stream", "big w", "huge w", "w", "gg", "ggs", "pog", "poggers",
    "pogchamp", "hype", "lets go", "let's go", "letsgo", "lesgo", "lessgo", "yay", "yess", "based", "10/10",
    "five stars", "5 stars", "best stream", "favorite stream", "quality", "worth it",
)
"""Praise and cheers for the host, the stream or the goods ('love it', 'W', 'pog', 'let's go'). Friendly, no
question: a short acknowledgement at most. Written by hand for this project."""

THANKS: tuple[str, ...] = (
    "thanks", "thank you", "thank u", "thankyou", "thx", "thnx", "tnx", "ty", "tysm", "tyvm", "thanks a lot",
    "thanks so much", "thank you so much", "much appreciated", "appreciate it", "appreciate you", "cheers",
    "thanks for the info", "thanks for answering", "thanks for the stream",
)
"""Viewers thanking the host. Written by hand for this project."""

PURCHASES: tuple[str, ...] = (
    "just bought", "just ordered", "just purchased", "bought one", "bought two", "bought it", "ordered one",
    "ordered two", "ordered it", "i ordered", "i bought", "i purchased", "got mine", "got one", "got two",
    "added to cart", "in my cart", "checked out", "checkout done", "order placed", "placed an order",
    "placed my order", "copped", "just copped", "taking two", "i'll take one", "ill take one", "i'll take two",
    "ill take two", "buying now", "buying one", "sold", "take my money", "shut up and take my money",
    "need this", "i need one", "want one", "i want one", "mine arrived", "received mine", "got it yesterday",
    "love mine", "second order", "ordering again", "bought again",
)
"""Purchases and wanting to buy ('just ordered two', 'take my money'): the host thanks them. Written by hand for
this project."""

FAREWELLS: tuple[str, ...] = (
    "bye", "byee", "bye bye", "goodbye", "good night", "goodnight", "gn", "night", "nite", "see you", "see ya",
    "cya", "later", "laters", "gotta go", "got to go", "have to go", "heading out", "off to bed", "time for bed",
    "take care", "peace", "peace out", "catch you later", "until next time", "see you tomorrow",
)
"""Leave-takings ('gotta go', 'gn'): friendly, answered with a short goodbye. Written by hand for this project."""

# -- claims the host must not make ------------------------------------------------------------------------------

ABSOLUTE_CLAIMS: tuple[str, ...] = (
    "best ever", "the best", "best in the world", "world's best", "worlds best", "best on the market",
    "best in class", "number one", "#1", "no. 1", "no.1", "top 1", "the only", "the only one", "unbeatable",
    "unmatched", "unrivaled", "unrivalled", "second to none", "nothing better", "better than any",
    "better than all", "cheapest ever", "lowest price ever", "lowest price in history", "cheapest in the world",
    "cheapest anywhere", "never been cheaper", "guaranteed", "100% guaranteed", "guarantee", "100% safe",
    "100% natural", "100% effective", "100% pure", "completely safe", "totally safe", "perfectly safe",
    "risk-free", "risk free", "no risk", "no side effects", "zero side effects", "cures", "cure", "heals",
    "treats", "prevents cancer", "clinically proven", "scientifically proven", "doctor recommended",
    "fda approved", "miracle", "magic", "instant results", "overnight results", "permanent", "permanently",
    "lasts forever", "never breaks", "never wears out", "indestructible", "unbreakable", "lifetime",
    "works for everyone", "works every time", "never fails", "perfect", "flawless", "the highest quality",
    "highest quality", "top quality in the world", "limited forever", "last chance ever",
)
"""Absolute and superlative claims that advertising rules forbid (China's Advertising Law art. 9, the FTC's
substantiation rule) unless the room's facts state them: 'best ever', '#1', 'guaranteed', '100% safe', cures.
A sentence carrying one is voiced only when a fact says it. Written by hand for this project."""
