package text

import (
	"strconv"
	"strings"
)

// ParseWeight converts a CSS font-weight string as the editor stores it ("100".."900",
// "normal", "bold") to a number; anything else gives 400.
func ParseWeight(s string) int {
	s = strings.TrimSpace(strings.ToLower(s))
	switch s {
	case "", "normal", "regular", "book":
		return 400
	case "bold":
		return 700
	case "thin", "hairline":
		return 100
	case "extralight", "extra-light", "ultralight":
		return 200
	case "light":
		return 300
	case "medium":
		return 500
	case "semibold", "semi-bold", "demibold":
		return 600
	case "extrabold", "extra-bold", "ultrabold":
		return 800
	case "black", "heavy":
		return 900
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f >= 1 && f <= 1000 {
		return int(f + 0.5)
	}
	return 400
}

// IsItalic reports whether an editor fontStyle.variant asks for an italic face ("italic" or
// "oblique", case-insensitively).
func IsItalic(variant string) bool {
	v := strings.TrimSpace(strings.ToLower(variant))
	return strings.HasPrefix(v, "italic") || strings.HasPrefix(v, "oblique")
}
