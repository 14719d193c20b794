module example.com/humaneval/string_xor

go 1.22
