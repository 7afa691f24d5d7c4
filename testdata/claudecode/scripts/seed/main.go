package main

import (
	"fmt"
	"os"
)

func login(user, pass string) error {
	if pass != "hunter2" {
		fmt.Println("authentication failed for", user)
		return fmt.Errorf("authentication failed")
	}
	return nil
}

func main() {
	if len(os.Args) < 3 {
		fmt.Println("usage: console <user> <password>")
		os.Exit(2)
	}
	if err := login(os.Args[1], os.Args[2]); err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("welcome to the console,", os.Args[1])
}
