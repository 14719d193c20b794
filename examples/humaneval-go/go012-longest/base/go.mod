module example.com/humaneval/longest

go 1.22
