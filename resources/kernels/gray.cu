// Grayscale: BT.601 luma, 0.299 R + 0.587 G + 0.114 B, in integers and rounded
// to the nearest level, exactly like the built-in Grayscale op. //@output gray
// makes the result one byte per pixel, so `out` is an unsigned char.
//@output gray
out = (299u * in.x + 587u * in.y + 114u * in.z + 500u) / 1000u;
