package score

import "strings"

// commandTools are the programs whose name, a space and an argument make
// a command line.
var commandTools = []string{
	"curl", "python", "python3", "go", "git", "npm", "npx", "node", "bun", "bash", "sh", "make",
	"docker", "pip", "meshnode", "jq", "sha256sum",
}

// commandStarts are the beginnings of a command line, by first byte:
// "$ ", an HTTP request ("GET /") or a tool and a space.
var commandStarts = func() (t [256][]string) {
	t['$'] = []string{"$ "}
	for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
		t[m[0]] = append(t[m[0]], m+" /")
	}
	for _, tool := range commandTools {
		t[tool[0]] = append(t[tool[0]], tool+" ")
	}
	return t
}()

// isCommand reports whether line holds a shell command, an HTTP request
// or a --flag:
// `(?:^|\s)(?:\$ |(?:GET|POST|PUT|PATCH|DELETE) /|(?:curl|python3?|…|sha256sum) [\w./<-])|\s--[a-z][a-z-]+`.
func isCommand(line string) bool {
	for i := 0; i < len(line); i++ {
		if (i == 0 || isSpace(line[i-1])) && commandAt(line[i:]) {
			return true
		}
		if isSpace(line[i]) && isFlag(line[i+1:]) {
			return true
		}
	}
	return false
}

// commandAt reports whether s starts with a command (isCommand).
func commandAt(s string) bool {
	for _, p := range commandStarts[s[0]] {
		if !strings.HasPrefix(s, p) {
			continue
		}
		if !strings.HasSuffix(p, " ") || p == "$ " {
			return true
		}
		if len(s) > len(p) && isArgByte(s[len(p)]) {
			return true
		}
	}
	return false
}

// isArgByte reports whether c may start a tool's argument: [\w./<-].
func isArgByte(c byte) bool {
	return isWordByte(c) || c == '.' || c == '/' || c == '<' || c == '-'
}

// isFlag reports whether s starts with "--" and a flag name: --[a-z][a-z-]+.
func isFlag(s string) bool {
	return len(s) >= 4 && s[0] == '-' && s[1] == '-' && isLower(s[2]) && (isLower(s[3]) || s[3] == '-')
}
