module example.com/humaneval/string_sequence

go 1.22
