"""Small building blocks shared by broadcaster/, danmaku/, renderer/ and cache/; imports none of them."""
